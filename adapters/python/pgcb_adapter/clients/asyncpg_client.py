"""The `asyncpg` client: asyncpg on one asyncio event loop.

Event loop: one asyncio.new_event_loop() (the standard selector loop; uvloop
is not used) for the adapter's whole life; each request is one
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
"""
import asyncio

import asyncpg

from .. import runtime
from ..block import run_async
from ..errors import AdapterError, describe_exception
from ..pgtext import ParamError, converter
from ..sqltext import parse_backend_options
from .base import Client as BaseClient
from .base import check_conn
from .base import Plan

_IO_ERRORS = (OSError, ConnectionError, asyncio.TimeoutError, EOFError)


class Statement:
    __slots__ = ("fetch", "columns", "convs")

    def __init__(self, ps):
        self.fetch = ps.fetch
        self.columns = [(a.name, a.type.oid) for a in ps.get_attributes()]
        self.convs = [converter(t.name, t.schema, t.kind) for t in ps.get_parameters()]


class Client(BaseClient):
    name = "asyncpg"
    options = {}

    def __init__(self, options, result_format=None):
        super().__init__(options, result_format)
        self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self.loop)
        self.conn = None

    def _run(self, coro):
        return self.loop.run_until_complete(coro)

    def info(self):
        v = asyncpg.__version__
        return {"client_version": v, "pipeline": False,
                "links": "asyncpg %s (binary results), asyncio event loop; %s" % (v, runtime())}

    def wire(self):
        # asyncpg cannot be asked for text: hello's result_format is not
        # honoured. Its Bind asks for binary for every type it has a binary
        # codec of (all built-in ones); conn.prepare() sends Parse + Describe
        # statement + Sync once, and each fetch Bind + Execute + Sync
        # (protocol.pyx bind_execute): described once, a Sync per query.
        return {"result_format": "binary", "describe": "once", "sync": "per_query",
                "statements": "named"}

    def connect(self, conn):
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
            self.conn = self._run(asyncpg.connect(**kw))
        except (asyncpg.PostgresError, asyncpg.InterfaceError, ValueError) + _IO_ERRORS as e:
            raise AdapterError("connect", describe_exception(e)) from None

    def prepare(self, number, name, sql, nparams):
        try:
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

    def plan(self, st, depth, begin, commit, params, runnable):
        fetch = st.fetch
        pending = None
        A = None
        if params is not None:
            A, runnable, pending = self._convert(params, depth, runnable, st.convs)
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

    def failure(self, exc):
        conn = self.conn
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
        if self.conn is not None:
            conn, self.conn = self.conn, None
            try:
                self._run(conn.close(timeout=2))
            except Exception:
                conn.terminate()
        self.loop.close()

    def terminate(self):
        if self.conn is not None:
            self.conn.terminate()
            self.conn = None
