"""The `asyncpg` client: asyncpg on one asyncio event loop.

Event loop: one asyncio.new_event_loop() (the standard selector loop; with
option loop=uvloop, uvloop's, as MagicStack's runner uses) for the adapter's
whole life; each request is one
run_until_complete, and a timed block is one coroutine holding the whole
batch loop (block.run_async): no loop start per batch.

Connection: asyncpg.connect(host, port, user, password, database,
ssl=<sslmode>, server_settings={application_name, and the settings of the
libpq `options` string}), exactly the `connect` request's keys.

Statements: `prepare` is conn.prepare(sql) (a named server-side statement,
asyncpg's own name); an execution is `await stmt.fetch(*args)`, a list of
Records. asyncpg always asks for binary results and decodes them in its
Cython protocol (hello's result_format = text cannot be honoured: wire()
says binary); Records iterate over their values, so the fold's
zip(*rows) reads them like tuples.

Depth: asyncpg runs one query at a time per connection (two at once raise
InterfaceError "another operation is in progress"), and 0.27 has no
pipelined path that returns rows (executemany pipelines, but discards the
results): a batch of depth D is D fetches one after another (hello
`pipeline: false`), with begin/commit fetched before and after.

Parameters: asyncpg binds typed Python values (an int for an int4) and
refuses text for non-text types, so each text is converted to the type of
the prepared statement's parameter (pgtext) before the timed batches: the
text the runner generated is the application's value, and asyncpg's own
encoding of it stays inside the batch. Text a parameter's type cannot read
fails that batch as the server would (kind query, 22P02/22003/22007) after
the batches before it ran.

After a failure: a failed transaction is rolled back (ROLLBACK) when the
connection is not closed.

Pool (connect with "pool": P, hello `load: true`): asyncpg.create_pool(
min_size=P, max_size=P) with the same connect arguments, which connects all
P before it returns (checked: pool.get_size()), then P acquires at once and
their releases; max_queries and max_inactive_connection_lifetime, which would
close a connection after 50000 queries or 300 s idle and reconnect it at the
next acquire (inside a timed load), are switched off: every other setting is
asyncpg's default. Statements on a pool: asyncpg's statement cache, the way
pool users run prepared statements: an execution is `await c.fetch(sql,
*args)` on an acquired connection, which prepares a named statement on that
connection at its first use and finds it in the connection's cache after;
`prepare` describes the statement once (conn.prepare, for the columns and
parameter types) and fills every connection's cache (Connection.
_get_statement, what fetch calls first), so that no Parse is timed. A run
acquires one connection for its whole block (pool.acquire() outside the
timing, released after); a query of a load is `async with pool.acquire() as
c: rows = await c.fetch(sql, *args)`, from before the acquire to after the
fold. asyncpg's release runs its reset query on the connection (SELECT
pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *; RESET ALL: one more round
trip per query, inside the query's latency, as pool.fetch() users pay it);
option pool_reset=no releases without it (a connection_class whose reset()
does nothing: asyncpg 0.28's create_pool(reset=...) in 0.27's terms), which
is what MagicStack's runner measures (plain connections, one per worker).
A terminated backend (57P01-57P03) or a closed connection is kind io.

Stream (one connection, hello `stream: true`): asyncpg_stream.py's buffered
PreparedStatement.fetch() and streamed PreparedStatement.cursor() in a
transaction, the parameters converted as for a run.
"""
import asyncio

import asyncpg

from .. import runtime
from ..block import run_async
from ..load import run_load
from ..errors import AdapterError, describe_exception
from ..pgtext import ParamError, converter
from ..sqltext import parse_backend_options
from ..stream import read_async
from . import asyncpg_stream
from .base import Client as BaseClient
from .base import check_conn
from .base import LOOP_OPTION, Plan, loop_links, new_loop

_IO_ERRORS = (OSError, ConnectionError, asyncio.TimeoutError, EOFError,
              asyncpg.ConnectionDoesNotExistError)
# The server ended the connection (admin_shutdown, crash_shutdown,
# cannot_connect_now): the pool's connection is gone.
_GONE_STATES = ("57P01", "57P02", "57P03")
# Off: a connection is never retired by use or idleness (it would reconnect
# inside a timed load).
_NEVER = 2 ** 62


class Statement:
    __slots__ = ("ps", "fetch", "columns", "convs", "sql")

    def __init__(self, ps, sql=None):
        self.ps = ps
        self.fetch = ps.fetch
        self.sql = sql
        self.columns = [(a.name, a.type.oid) for a in ps.get_attributes()]
        self.convs = [converter(t.name, t.schema, t.kind) for t in ps.get_parameters()]


class _NoResetConnection(asyncpg.Connection):
    """A connection whose release to the pool runs no reset query: what
    asyncpg 0.28's create_pool(reset=...) offers, through 0.27's public
    connection_class and Connection.reset (which the pool's release calls).
    Our loads open no transaction, cursor, LISTEN, setting or advisory lock
    that the reset would undo."""

    async def reset(self, *, timeout=None):
        return None


class Client(BaseClient):
    name = "asyncpg"
    options = {"loop": LOOP_OPTION,
               "pool_reset": ("yes", ("yes", "no"),
                              "a pool's release runs asyncpg's reset query (one more round "
                              "trip per load query; no: none, as MagicStack's runner, which "
                              "holds plain connections)")}
    load = True
    stream = True

    def __init__(self, options, result_format=None):
        super().__init__(options, result_format)
        self.loop = new_loop(self.opts["loop"])
        self.conn = None
        self.pool = None
        self.held = None  # the pool's connection a run holds

    def _run(self, coro):
        return self.loop.run_until_complete(coro)

    def info(self):
        v = asyncpg.__version__
        reset = "" if self.opts["pool_reset"] == "yes" else "; a pool's release sends no reset query"
        return {"client_version": v, "pipeline": False,
                "links": "asyncpg %s (binary results), %s%s; %s"
                         % (v, loop_links(self.opts["loop"]), reset, runtime())}

    def wire(self):
        # asyncpg cannot be asked for text: hello's result_format is not
        # honoured. Its Bind asks for binary for every type it has a binary
        # codec of (all built-in ones); conn.prepare() sends Parse + Describe
        # statement + Sync once, and each fetch Bind + Execute + Sync
        # (protocol.pyx bind_execute): described once, a Sync per query.
        return {"result_format": "binary", "describe": "once", "sync": "per_query",
                "statements": "named"}

    def connect(self, conn, pool=None):
        check_conn(conn, "asyncpg")
        settings = {}
        if "options" in conn:
            try:
                settings.update(parse_backend_options(conn["options"]))
            except ValueError as e:
                raise AdapterError("config", "asyncpg: connection options %r: %s"
                                   % (conn["options"], e)) from None
        if "application_name" in conn:
            settings["application_name"] = conn["application_name"]
        kw = {"server_settings": settings or None}
        for key, arg in (("host", "host"), ("user", "user"), ("password", "password"),
                         ("dbname", "database"), ("sslmode", "ssl")):
            if key in conn:
                kw[arg] = conn[key]
        if "port" in conn:
            try:
                kw["port"] = int(conn["port"])
            except ValueError:
                raise AdapterError("connect", "port %r is not a number" % conn["port"]) from None
        try:
            if pool is None:
                self.conn = self._run(asyncpg.connect(**kw))
            else:
                self.pool = self._run(self._open_pool(pool, kw))
        except (asyncpg.PostgresError, asyncpg.InterfaceError, ValueError) + _IO_ERRORS as e:
            raise AdapterError("connect", describe_exception(e)) from None

    async def _open_pool(self, n, kw):
        if self.opts["pool_reset"] == "no":
            kw = dict(kw, connection_class=_NoResetConnection)
        pool = await asyncpg.create_pool(min_size=n, max_size=n, max_queries=_NEVER,
                                         max_inactive_connection_lifetime=0, **kw)
        held = [await pool.acquire() for _ in range(n)]
        for c in held:
            await pool.release(c)
        if pool.get_size() != n:
            raise AdapterError("connect", "asyncpg pool: %d of %d connections open"
                               % (pool.get_size(), n))
        return pool

    async def _prepare_pool(self, sql):
        pool = self.pool
        held = [await pool.acquire() for _ in range(pool.get_max_size())]
        try:
            st = Statement(await held[0].prepare(sql), sql)
            for c in held:
                await c._get_statement(sql, None)
            return st
        finally:
            for c in held:
                await pool.release(c)

    def prepare(self, number, name, sql, nparams):
        try:
            if self.pool is not None:
                return self._run(self._prepare_pool(sql))
            return Statement(self._run(self.conn.prepare(sql)))
        except Exception as e:
            raise self.failure(e) from None

    def param_count(self, st):
        return len(st.convs)

    def _convert(self, params, depth, runnable, convs):
        """params as tuples of typed values, for the first `runnable` batches:
        (args, runnable, pending error)."""
        args = []
        for idx in range(runnable * depth):
            row = params[idx]
            try:
                args.append(tuple(v if v is None or c is None else c(v)
                                  for v, c in zip(row, convs)))
            except ParamError as e:
                runnable = idx // depth
                del args[runnable * depth:]
                return args, runnable, AdapterError("query", e.message, e.sqlstate)
        return args, runnable, None

    def _cached(self, conn, st):
        """st's execution on a pool connection: its statement cache."""
        sql, f = st.sql, conn.fetch

        async def fetch(*args):
            return await f(sql, *args)
        return fetch

    def plan(self, st, depth, begin, commit, params, runnable):
        pending = None
        A = None
        if params is not None:
            A, runnable, pending = self._convert(params, depth, runnable, st.convs)
        if self.pool is not None:
            self.held = self.conn = self._run(self.pool.acquire())
            fetch = self._cached(self.conn, st)
            bf = self._cached(self.conn, begin) if begin is not None else None
            cf = self._cached(self.conn, commit) if commit is not None else None
        else:
            fetch = st.fetch
            bf = begin.fetch if begin is not None else None
            cf = commit.fetch if commit is not None else None
        rng = range(depth)

        if depth == 1 and bf is None:
            if A is None:
                async def batch(i):
                    return (await fetch(),)
            else:
                async def batch(i):
                    return (await fetch(*A[i]),)
        elif A is None:
            async def batch(i):
                if bf is not None:
                    await bf()
                out = [await fetch() for _ in rng]
                if cf is not None:
                    await cf()
                return out
        else:
            async def batch(i):
                base = i * depth
                if bf is not None:
                    await bf()
                out = [await fetch(*A[base + k]) for k in rng]
                if cf is not None:
                    await cf()
                return out

        cols = st.columns
        return Plan(batch, runnable, pending, columns=lambda k: cols)

    def run_block(self, n, plan, kinds, buf):
        return self._run(run_async(n, plan.batch, kinds, buf))

    def release_run(self):
        if self.held is not None:
            held, self.held, self.conn = self.held, None, None
            try:
                self._run(self.pool.release(held))
            except Exception:
                pass  # a broken connection: the failure said so

    def run_load(self, st, spec, params, kinds, buf):
        A = None
        if params is not None:
            A, limit, pending = self._convert(params, 1, spec.limit, st.convs)
            if pending is not None:
                spec.limit, spec.pending = limit, pending
        acquire, sql = self.pool.acquire, st.sql
        if A is None:
            async def query(i):
                async with acquire() as c:
                    return await c.fetch(sql)
        else:
            async def query(i):
                async with acquire() as c:
                    return await c.fetch(sql, *A[i])
        return self._run(run_load(spec, query, kinds, buf))

    def run_stream(self, st, mode, fetch, params, fold):
        args = ()
        if params is not None:
            A, _, pending = self._convert([params], 1, 1, st.convs)
            if pending is not None:
                raise pending  # before the timing, as the server would refuse the Bind
            args = A[0]
        idiom = asyncpg_stream.idiom(self.conn, st.ps, mode, fetch, args)
        return (idiom.line,) + self._run(read_async(idiom, fold))

    def load_failure(self, exc):
        # InternalClientError: a connection's protocol state machine broke
        # (seen when a backend is terminated while its connection is being
        # reset in release: "cannot switch to state 15; another operation
        # (2) is in progress"); that connection cannot be used again.
        if isinstance(exc, _IO_ERRORS + (asyncpg.InternalClientError,)) or (
                isinstance(exc, asyncpg.PostgresError) and exc.sqlstate in _GONE_STATES):
            return AdapterError("io", "a pool connection was lost: %s" % describe_exception(exc))
        if isinstance(exc, asyncpg.PostgresError) and exc.sqlstate:
            # A statement of autocommit: no transaction is left to roll back.
            return AdapterError("query", getattr(exc, "message", None) or str(exc), exc.sqlstate)
        if isinstance(exc, AdapterError):
            return exc
        return AdapterError("protocol", describe_exception(exc))

    def failure(self, exc):
        conn = self.conn
        if isinstance(exc, asyncpg.PostgresError) and exc.sqlstate in _GONE_STATES:
            return AdapterError("io", "connection lost: %s" % describe_exception(exc))
        if conn is None or conn.is_closed() or isinstance(exc, _IO_ERRORS):
            return AdapterError("io", "connection lost: %s" % describe_exception(exc))
        if isinstance(exc, asyncpg.PostgresError) and exc.sqlstate:
            err = AdapterError("query", getattr(exc, "message", None) or str(exc), exc.sqlstate)
        elif isinstance(exc, AdapterError):
            err = exc
        else:
            err = AdapterError("protocol", describe_exception(exc))
        try:
            if conn.is_in_transaction():
                self._run(conn.execute("ROLLBACK"))
        except Exception as e2:
            if conn.is_closed():
                return AdapterError("io", "connection lost: %s" % describe_exception(e2))
        return err

    def close(self):
        if self.pool is not None:
            pool, self.pool = self.pool, None
            try:
                self._run(asyncio.wait_for(pool.close(), 2))
            except Exception:
                pool.terminate()
        if self.conn is not None:
            conn, self.conn = self.conn, None
            try:
                self._run(conn.close(timeout=2))
            except Exception:
                conn.terminate()
        self.loop.close()

    def terminate(self):
        if self.pool is not None:
            self.pool.terminate()
            self.pool = None
        if self.conn is not None:
            self.conn.terminate()
            self.conn = None
