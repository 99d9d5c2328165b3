"""The `psycopg` client: psycopg 3, synchronous, through its idiomatic fast path.

Implementation: psycopg from PyPI with psycopg-binary, its C core as users
install it (`pip install "psycopg[binary]"`: pq.__impl__ "binary", over the
libpq that wheel bundles); the client `psycopg_python`
(psycopg_python_client.py) is the same psycopg forced to its pure-Python
implementation (PSYCOPG_IMPL=python before the import: over the system's
libpq through ctypes). `links` names pq.__impl__ and every version.

Connection: psycopg.connect(conninfo, autocommit=True), the conninfo built by
psycopg.conninfo.make_conninfo from exactly the keys of the `connect`
request (libpq fills in the rest from the environment it inherits from the
runner, as the bridge's own libpq did). Autocommit, as the C drivers: each
statement is its own implicit transaction; BEGIN/COMMIT arrive as
statements when the bridge asks for them.

Statements: every execution is cursor.execute(sql, params, prepare=True):
psycopg prepares a server-side statement (its own name, _pg3_N) at the
first execution and runs it prepared from then on. `prepare` therefore only
rewrites the SQL ($n -> %s, see sqltext.to_psycopg) and contacts no server:
a bad statement fails at its first execution. Results are psycopg's
defaults: text format, rows as tuples of the values its default loaders
make (int, str, bool, Decimal, datetime ...); with hello's result_format =
binary, every cursor is conn.cursor(binary=True): binary results, decoded
by psycopg's binary loaders into the same Python types.

Batches (depth D, on D cursors reused across batches):
    depth 1, no begin/commit: execute + fetchall.
    pipeline mode (option pipeline=auto, the default, when the batch has
    more than one statement: depth > 1 or begin/commit): `with
    conn.pipeline():` issuing [begin,] the D executes [, commit]; leaving
    the block sends one Sync and reads every result (one round trip); then
    fetchall() of each cursor, in order. psycopg's pipeline puts the D
    executions between two Syncs: in autocommit they form one implicit
    transaction, and a failing one aborts those after it.
    pipeline=no, or libpq without pipeline mode: the executions one after
    another, each execute + fetchall.
A statement without a result set (INSERT ...) reads as no rows: its cursor's
result status is checked until the statement has shown whether it returns
rows, then fetchall() (or nothing) is called directly.

After a failure: a failed transaction (the bridge's BEGIN) is rolled back
with conn.rollback() -- psycopg then discards its prepared statements
(DEALLOCATE ALL, its rule after any rollback) and re-prepares each on its
next execution. A pipeline is always left by its `with` block. psycopg logs
a warning ("error ignored terminating <Pipeline>") when leaving a pipeline
whose batch failed; its logger is set to ERROR so that this expected noise
does not fill the output tail the bridge keeps for error messages.

Pool (connect with "pool": P; hello `load: true` when psycopg_pool imports:
PyPI's psycopg-pool, in the adapter's venv): psycopg_pool.
AsyncConnectionPool(conninfo, min_size=P, max_size=P, kwargs={"autocommit":
True}) on one asyncio event loop, opened with open(wait=True) (all P
connected before connect replies, checked with P getconn() at once and
their putconn()); max_lifetime, which retires a connection after an hour
and opens its successor in the background, is set beyond any run; every
other setting is the pool's default (no reset callback: a connection
returned idle goes straight back). A single probe connection first makes a
refused connection fail at once with the server's message (the pool would
retry until its timeout). Connections are psycopg.AsyncConnection; every
execution is `await conn.execute(sql, params, prepare=True, binary=...)`
(psycopg prepares it on that connection at its first execution there: the
warm-up's), then `await cur.fetchall()`. A run acquires one connection for
its block (pool.getconn() outside the timing, putconn() after) and runs the
batches above with async cursors (`async with conn.pipeline()` for
pipelines); a query of a load is `async with pool.connection() as conn:`
the execute and fetchall, timed from before the acquire to after the fold.
A terminated backend (57P01-57P03) or a broken connection is kind io.

Stream (one connection, hello `stream: true`): psycopg_stream.py's
buffered execute + fetchall and streamed cursor.stream(), on a cursor of
their own.
"""
import asyncio
import logging

import psycopg
from psycopg import pq
from psycopg.conninfo import make_conninfo

from .. import runtime
from ..block import run_async, run_sync
from ..load import run_load
from ..errors import AdapterError, describe_exception
from ..sqltext import to_psycopg
from ..stream import read_sync
from . import psycopg_stream
from .base import Client as BaseClient
from .base import check_conn
from .base import LOOP_OPTION, Plan, check_loop, loop_links, new_loop

TUPLES_OK = pq.ExecStatus.TUPLES_OK
IDLE = pq.TransactionStatus.IDLE
_IMPL = {"python": "pure Python", "c": "C core, psycopg-c", "binary": "C core, psycopg-binary"}

logging.getLogger("psycopg").setLevel(logging.ERROR)

try:
    import psycopg_pool
except ImportError:  # psycopg-pool is not installed (a release's install): no pool, no loads
    psycopg_pool = None

# A pool connection's max_lifetime: beyond any run (the default, an hour,
# retires it and connects its successor in the background, in a timed load).
_LIFETIME_S = 10.0 ** 9
_GONE_STATES = ("57P01", "57P02", "57P03")


class Statement:
    __slots__ = ("sql", "pysql", "named", "nparams", "has_rows")

    def __init__(self, sql):
        self.sql = sql  # as given: executed as is without parameters
        self.pysql, order, self.named = to_psycopg(sql)  # with parameters
        self.nparams = max(order) + 1 if order else 0
        self.has_rows = None  # unknown until its first execution


def _reader(cur, st):
    """A function returning the rows of cur's current result."""
    if st.has_rows:
        return cur.fetchall
    if st.has_rows is False:
        return tuple

    fetchall = cur.fetchall

    def read():
        res = cur.pgresult
        if res is not None and res.status == TUPLES_OK:
            st.has_rows = True
            return fetchall()
        st.has_rows = False
        return ()
    return read


async def _no_rows():
    return ()


def _areader(cur, st):
    """The same for an async cursor: a coroutine function."""
    if st.has_rows:
        return cur.fetchall
    if st.has_rows is False:
        return _no_rows

    fetchall = cur.fetchall

    async def read():
        res = cur.pgresult
        if res is not None and res.status == TUPLES_OK:
            st.has_rows = True
            return await fetchall()
        st.has_rows = False
        return ()
    return read


def _no_pipeline_reason():
    """Why psycopg has no pipeline mode here (3.1's private helper; later
    releases have none)."""
    why = getattr(psycopg.Pipeline, "_not_supported_reason", None)
    return (why() if why else None) or "libpq or psycopg's wrapper lacks pipeline mode"


def impl_links():
    """What links says of the implementation psycopg loaded: pq.__impl__
    ("binary", "c" or "python"), the C core's version and the libpq."""
    v = pq.version()
    libpq = "%d.%d" % (v // 10000, v % 100) if v >= 100000 else str(v)
    impl = pq.__impl__
    what = _IMPL.get(impl, impl)
    if impl == "binary":
        try:
            import psycopg_binary
            what += " %s" % psycopg_binary.__version__
        except (ImportError, AttributeError):
            pass
    return "pq.__impl__ %s: %s, libpq %s" % (impl, what, libpq)


class Client(BaseClient):
    name = "psycopg"
    json_parsed = True  # its json/jsonb loaders return json.loads() of the text
    options = {"pipeline": ("auto", ("auto", "no"),
                            "auto: pipeline mode for a batch of more than one statement"),
               "loop": LOOP_OPTION}
    stream = True

    def __init__(self, options, result_format=None):
        super().__init__(options, result_format)
        check_loop(self.opts["loop"])
        self.binary = result_format == "binary"
        self.conn = None
        self.pipeline_off = ""
        if self.opts["pipeline"] == "auto" and not psycopg.Pipeline.is_supported():
            self.pipeline_off = _no_pipeline_reason()
        self.use_pipeline = self.opts["pipeline"] == "auto" and not self.pipeline_off
        self.cursors = []
        self.begin_cur = self.commit_cur = None
        self.load = psycopg_pool is not None
        self.pool = self.loop = self.held = None
        self.stream_cur = None
        self.no_chunks = psycopg_stream.chunked_reason()

    def _run(self, coro):
        return self.loop.run_until_complete(coro)

    def info(self):
        links = "psycopg %s (%s); %s" % (psycopg.__version__, impl_links(), runtime())
        if self.pipeline_off:
            links += " [no pipeline mode: %s]" % self.pipeline_off
        if psycopg_pool is not None:
            links += "; psycopg_pool %s (AsyncConnectionPool, %s)" % (
                psycopg_pool.__version__, loop_links(self.opts["loop"]))
        return {"client_version": psycopg.__version__, "links": links,
                "pipeline": self.use_pipeline}

    def wire(self):
        # libpq's PQsendQueryPrepared sends Bind, Describe portal, Execute
        # with every execution (and Sync outside pipeline mode); psycopg's
        # pipeline sends one Sync when its block ends (a batch of depth > 1
        # or with begin/commit), so with pipelines a batch has one Sync.
        return {"result_format": "binary" if self.binary else "text",
                "describe": "per_execution",
                "sync": "per_batch" if self.use_pipeline else "per_query",
                "statements": "named"}

    def connect(self, conn, pool=None):
        check_conn(conn, "psycopg")
        if pool is not None:
            self.loop = new_loop(self.opts["loop"])
            self.pool = self._run(self._open_pool(pool, make_conninfo(**conn)))
            return
        try:
            self.conn = psycopg.connect(make_conninfo(**conn), autocommit=True)
        except psycopg.Error as e:
            raise AdapterError("connect", str(e)) from None
        self.begin_cur = self.conn.cursor(binary=self.binary)
        self.commit_cur = self.conn.cursor(binary=self.binary)

    async def _open_pool(self, n, conninfo):
        try:
            probe = await psycopg.AsyncConnection.connect(conninfo, autocommit=True)
        except psycopg.Error as e:
            raise AdapterError("connect", str(e)) from None
        await probe.close()
        pool = psycopg_pool.AsyncConnectionPool(conninfo, min_size=n, max_size=n,
                                                kwargs={"autocommit": True}, open=False,
                                                max_lifetime=_LIFETIME_S)
        try:
            await pool.open(wait=True, timeout=30.0)
            held = [await pool.getconn() for _ in range(n)]
            for c in held:
                await pool.putconn(c)
        except (psycopg.Error, psycopg_pool.PoolTimeout) as e:
            await pool.close()
            raise AdapterError("connect", "psycopg_pool: %s" % e) from None
        size = pool.get_stats().get("pool_size")
        if size != n:
            await pool.close()
            raise AdapterError("connect", "psycopg_pool: %s of %d connections open" % (size, n))
        return pool

    def prepare(self, number, name, sql, nparams):
        return Statement(sql)

    def param_count(self, st):
        return st.nparams

    def _cursors(self, n):
        while len(self.cursors) < n:
            self.cursors.append(self.conn.cursor(binary=self.binary))
        return self.cursors[:n]

    def _params(self, st, params):
        """(sql, per-execution parameters) as psycopg takes them."""
        if params is None:
            return st.sql, None
        if st.named:  # outside timing: the placeholders' spelling, not client work
            return st.pysql, [{"p%d" % (j + 1): v for j, v in enumerate(row)} for row in params]
        return st.pysql, params

    def _pool_plan(self, st, depth, begin, commit, params, runnable):
        """A run on one of the pool's connections, held until release_run()."""
        conn = self.held = self.conn = self._run(self.pool.getconn())
        curs = [conn.cursor(binary=self.binary) for _ in range(depth)]
        ex = [c.execute for c in curs]
        rd = [_areader(c, st) for c in curs]
        sql, P = self._params(st, params)
        bex = cex = bsql = csql = None
        if begin is not None:
            bex, bsql = conn.cursor(binary=self.binary).execute, begin.sql
            cex, csql = conn.cursor(binary=self.binary).execute, commit.sql
        ex0, rd0 = ex[0], rd[0]
        if depth == 1 and bex is None:
            if P is None:
                async def batch(i):
                    await ex0(sql, None, prepare=True)
                    return (await rd0(),)
            else:
                async def batch(i):
                    await ex0(sql, P[i], prepare=True)
                    return (await rd0(),)
        else:
            ek = list(zip(ex, range(depth)))
            pipe = conn.pipeline if self.use_pipeline else None

            async def issue(i):
                base = i * depth
                if bex is not None:
                    await bex(bsql, None, prepare=True)
                for e, k in ek:
                    await e(sql, None if P is None else P[base + k], prepare=True)
                if cex is not None:
                    await cex(csql, None, prepare=True)

            if pipe is not None:
                async def batch(i):
                    async with pipe():
                        await issue(i)
                    return [await r() for r in rd]
            else:
                async def batch(i):  # one after another: each read before the next
                    base = i * depth
                    if bex is not None:
                        await bex(bsql, None, prepare=True)
                    out = []
                    for e, r, k in zip(ex, rd, range(depth)):
                        await e(sql, None if P is None else P[base + k], prepare=True)
                        out.append(await r())
                    if cex is not None:
                        await cex(csql, None, prepare=True)
                    return out

        def columns(k):
            desc = curs[k].description
            return [(c.name, c.type_code) for c in desc] if desc else []

        return Plan(batch, runnable, columns=columns)

    def plan(self, st, depth, begin, commit, params, runnable):
        if self.pool is not None:
            return self._pool_plan(st, depth, begin, commit, params, runnable)
        curs = self._cursors(depth)
        ex = [c.execute for c in curs]
        rd = [_reader(c, st) for c in curs]
        if params is None:
            sql, P = st.sql, None
        else:
            sql = st.pysql
            if st.named:  # outside timing: the placeholders' spelling, not client work
                P = [{"p%d" % (j + 1): v for j, v in enumerate(row)} for row in params]
            else:
                P = params
        bex = cex = None
        bsql = csql = None
        if begin is not None:
            bex, bsql = self.begin_cur.execute, begin.sql
            cex, csql = self.commit_cur.execute, commit.sql

        if depth == 1 and bex is None:
            ex0, rd0 = ex[0], rd[0]
            if P is None:
                def batch(i):
                    ex0(sql, None, prepare=True)
                    return (rd0(),)
            else:
                def batch(i):
                    ex0(sql, P[i], prepare=True)
                    return (rd0(),)
        elif self.use_pipeline:
            pipe = self.conn.pipeline
            if P is None:
                def batch(i):
                    with pipe():
                        if bex is not None:
                            bex(bsql, None, prepare=True)
                        for e in ex:
                            e(sql, None, prepare=True)
                        if cex is not None:
                            cex(csql, None, prepare=True)
                    return [r() for r in rd]
            else:
                ek = list(zip(ex, range(depth)))

                def batch(i):
                    base = i * depth
                    with pipe():
                        if bex is not None:
                            bex(bsql, None, prepare=True)
                        for e, k in ek:
                            e(sql, P[base + k], prepare=True)
                        if cex is not None:
                            cex(csql, None, prepare=True)
                    return [r() for r in rd]
        else:
            if P is None:
                er = list(zip(ex, rd))

                def batch(i):
                    if bex is not None:
                        bex(bsql, None, prepare=True)
                    out = []
                    for e, r in er:
                        e(sql, None, prepare=True)
                        out.append(r())
                    if cex is not None:
                        cex(csql, None, prepare=True)
                    return out
            else:
                erk = list(zip(ex, rd, range(depth)))

                def batch(i):
                    base = i * depth
                    if bex is not None:
                        bex(bsql, None, prepare=True)
                    out = []
                    for e, r, k in erk:
                        e(sql, P[base + k], prepare=True)
                        out.append(r())
                    if cex is not None:
                        cex(csql, None, prepare=True)
                    return out

        def columns(k):
            desc = curs[k].description
            return [(c.name, c.type_code) for c in desc] if desc else []

        return Plan(batch, runnable, columns=columns)

    def run_block(self, n, plan, kinds, buf):
        if self.pool is not None:
            return self._run(run_async(n, plan.batch, kinds, buf))
        return run_sync(n, plan.batch, kinds, buf)

    def release_run(self):
        if self.held is not None:
            held, self.held, self.conn = self.held, None, None
            self._run(self.pool.putconn(held))

    def run_load(self, st, spec, params, kinds, buf):
        sql, P = self._params(st, params)
        connection, binary = self.pool.connection, self.binary
        if st.has_rows:
            async def query(i):
                async with connection() as c:
                    cur = await c.execute(sql, None if P is None else P[i], prepare=True,
                                          binary=binary)
                    return await cur.fetchall()
        else:  # not known yet to return rows: look at each result (as _reader)
            async def query(i):
                async with connection() as c:
                    cur = await c.execute(sql, None if P is None else P[i], prepare=True,
                                          binary=binary)
                    res = cur.pgresult
                    if res is not None and res.status == TUPLES_OK:
                        return await cur.fetchall()
                    return ()
        return self._run(run_load(spec, query, kinds, buf))

    def run_stream(self, st, mode, fetch, params, fold):
        if self.stream_cur is None:
            self.stream_cur = self.conn.cursor(binary=self.binary)
        cur = self.stream_cur
        P = self._params(st, [params])[1][0] if params is not None else None
        idiom = psycopg_stream.idiom(cur, st, mode, fetch, P, _reader(cur, st), self.no_chunks)
        return (idiom.line,) + read_sync(idiom, fold)

    def load_failure(self, exc):
        if isinstance(exc, psycopg.Error):
            sqlstate = getattr(exc, "sqlstate", None) or exc.diag.sqlstate
            if sqlstate in _GONE_STATES or (not sqlstate
                                            and isinstance(exc, psycopg.OperationalError)):
                return AdapterError("io", "a pool connection was lost: %s"
                                    % describe_exception(exc))
            if sqlstate:
                return AdapterError("query", exc.diag.message_primary or str(exc), sqlstate)
        if isinstance(exc, AdapterError):
            return exc
        return AdapterError("protocol", "internal error: %s" % describe_exception(exc))

    def failure(self, exc):
        conn = self.conn
        if self.pool is not None:
            return self._pool_failure(conn, exc)
        if conn is None or conn.closed:
            return AdapterError("io", "connection lost: %s" % describe_exception(exc))
        if isinstance(exc, psycopg.Error):
            sqlstate = getattr(exc, "sqlstate", None) or exc.diag.sqlstate
            if sqlstate:
                err = AdapterError("query", exc.diag.message_primary or str(exc), sqlstate)
            elif isinstance(exc, psycopg.OperationalError):
                err = AdapterError("io", str(exc))
            else:
                err = AdapterError("protocol", describe_exception(exc))
        else:
            err = AdapterError("protocol", "internal error: %s" % describe_exception(exc))
        try:
            if conn.info.transaction_status != IDLE:
                conn.rollback()
        except psycopg.Error as e2:
            if conn.closed:
                return AdapterError("io", "connection lost: %s" % describe_exception(e2))
        return err

    def _pool_failure(self, conn, exc):
        err = self.load_failure(exc)
        if err.kind == "io" or conn is None or conn.closed:
            return err if err.kind == "io" else AdapterError(
                "io", "connection lost: %s" % describe_exception(exc))
        try:
            if conn.info.transaction_status != IDLE:
                self._run(conn.rollback())
        except psycopg.Error as e2:
            if conn.closed:
                return AdapterError("io", "connection lost: %s" % describe_exception(e2))
        return err

    def close(self):
        if self.pool is not None:
            if self.held is not None:
                try:
                    self.release_run()
                except Exception:
                    pass
            pool, self.pool = self.pool, None
            try:
                self._run(pool.close(timeout=2.0))
            except Exception:
                pass
            self.loop.close()
        if self.conn is not None:
            self.conn.close()
            self.conn = None
