"""The `psycopg2` client: psycopg2 (PyPI's psycopg2-binary: its C extension
over the libpq the wheel bundles), synchronous, as Django and SQLAlchemy
call it.

Connection: psycopg2.connect(dsn) with the dsn psycopg2.extensions.make_dsn
builds from exactly the keys of the `connect` request (libpq fills in the
rest from the environment it inherits from the runner), then
conn.autocommit = True: each statement its own implicit transaction, as the
C drivers; BEGIN/COMMIT arrive as statements when the bridge asks for them.

Statements: psycopg2 has no server-side prepared statements. Every
execution is cursor.execute(sql, params): psycopg2 quotes each parameter
into the text itself (a str as a quoted literal, None as NULL: the server
reads '7' as an int where the column is one, as it reads a text parameter)
and sends the whole text with PQexec, the simple query protocol: one Query
message, parsed, planned and described (a RowDescription) by the server at
every execution, text results (the simple protocol has no binary), a
ReadyForQuery after each. `prepare` therefore only rewrites the SQL's $n
into psycopg2's %s / %(pN)s (sqltext.to_psycopg: the same placeholders as
psycopg 3's) and contacts no server. hello's `wire` says what the Query
amounts to in the extended protocol's terms: text results, a Describe per
execution, a Sync per query, unnamed statements (parsed every time) -- the
runner marks the driver `*`, not like for like, in a run that asks for
named statements (every run) or binary results. Rows: cursor.fetchall(), a
list of tuples of the values psycopg2's default typecasters make (int, str,
bool, Decimal, datetime, date, time, timedelta, memoryview for bytea, lists
for arrays, json.loads() for json and jsonb; uuid as str: psycopg2 makes a
UUID only after register_uuid()).

Batches (depth D, on D cursors reused across batches): one execute +
fetchall after another (psycopg2 has no pipeline: hello `pipeline: false`),
with begin/commit executed before and after. A statement without a result
set reads as no rows (cursor.description None, checked until the statement
has shown whether it returns rows).

After a failure: a failed transaction (the bridge's BEGIN) is rolled back
with a ROLLBACK statement (conn.rollback() does nothing in autocommit).

Pool (connect with "pool": P, hello `load: true`): psycopg2.pool.
ThreadedConnectionPool(P, P, dsn), which opens all P at once; each
connection is set to autocommit once (P getconn() at once, then putconn()).
Its getconn() does not wait when every connection is out (it raises
PoolError "connection pool exhausted"), so the pool's users guard it with a
semaphore of P permits, and so does the adapter: a query of a load is
sem.acquire(), conn = pool.getconn(), a new cursor's execute and fetchall,
pool.putconn(conn), sem.release(), timed from before the acquire to after
the fold, on `concurrency` threads (threadload.py: a threaded web server's
request threads). A run acquires one connection for its block (outside the
timing) and runs the batches above on it. A terminated backend (57P01-57P03)
or a broken connection is kind io.

Stream (one connection, hello `stream: true`): psycopg2_stream.py's
buffered execute + fetchall and streamed named cursor, in a transaction.
"""
import threading

import psycopg2
import psycopg2.extensions
import psycopg2.pool

from .. import runtime
from ..block import run_sync
from ..errors import AdapterError, describe_exception
from ..sqltext import to_psycopg
from ..threadload import run_load_threads
from . import psycopg2_stream
from .base import Client as BaseClient
from .base import Plan, check_conn

IDLE = psycopg2.extensions.TRANSACTION_STATUS_IDLE
_GONE_STATES = ("57P01", "57P02", "57P03")


class Statement:
    __slots__ = ("sql", "pysql", "named", "nparams", "has_rows")

    def __init__(self, sql):
        self.sql = sql  # as given: executed as is without parameters (no % read)
        self.pysql, order, self.named = to_psycopg(sql)  # with parameters
        self.nparams = max(order) + 1 if order else 0
        self.has_rows = None  # unknown until its first execution


def _reader(cur, st):
    """A function returning the rows of cur's last execution."""
    if st.has_rows:
        return cur.fetchall
    if st.has_rows is False:
        return tuple
    fetchall = cur.fetchall

    def read():
        if cur.description is not None:
            st.has_rows = True
            return fetchall()
        st.has_rows = False
        return ()
    return read


def _libpq():
    v = psycopg2.extensions.libpq_version()
    return "%d.%d" % (v // 10000, v % 100) if v >= 100000 else str(v)


class Client(BaseClient):
    name = "psycopg2"
    json_parsed = True  # json and jsonb typecasters return json.loads() of the text
    load = True
    stream = True

    def __init__(self, options, result_format=None):
        super().__init__(options, result_format)
        self.conn = None
        self.pool = self.sem = self.held = None
        self.cursors = []
        self.begin_cur = self.commit_cur = None
        self.stream_cur = None

    def info(self):
        v = psycopg2.__version__.split()[0]
        return {"client_version": v, "pipeline": False,
                "links": "psycopg2 %s (psycopg2-binary: C extension, libpq %s; simple query "
                         "protocol, parameters quoted client-side); %s; pool: "
                         "psycopg2.pool.ThreadedConnectionPool with a semaphore, threads"
                         % (v, _libpq(), runtime())}

    def wire(self):
        # PQexec of the text with the parameters quoted in: one Query message
        # per execution. The server parses it (unnamed, every time), sends a
        # RowDescription with its rows (a Describe per execution) and a
        # ReadyForQuery (a Sync per query); the simple protocol has only text.
        return {"result_format": "text", "describe": "per_execution", "sync": "per_query",
                "statements": "unnamed"}

    def connect(self, conn, pool=None):
        check_conn(conn, "psycopg2")
        dsn = psycopg2.extensions.make_dsn(**conn)
        try:
            if pool is None:
                self.conn = psycopg2.connect(dsn)
                self.conn.autocommit = True
                self.begin_cur = self.conn.cursor()
                self.commit_cur = self.conn.cursor()
                return
            self.pool = psycopg2.pool.ThreadedConnectionPool(pool, pool, dsn)
        except psycopg2.Error as e:
            raise AdapterError("connect", str(e).strip()) from None
        held = [self.pool.getconn() for _ in range(pool)]
        for c in held:
            c.autocommit = True
        for c in held:
            self.pool.putconn(c)
        self.sem = threading.BoundedSemaphore(pool)

    def prepare(self, number, name, sql, nparams):
        return Statement(sql)

    def param_count(self, st):
        return st.nparams

    def _params(self, st, params):
        """(sql, per-execution parameters) as psycopg2 takes them (outside
        timing: the placeholders' spelling, not client work)."""
        if params is None:
            return st.sql, None
        if st.named:
            return st.pysql, [{"p%d" % (j + 1): v for j, v in enumerate(row)} for row in params]
        return st.pysql, params

    def plan(self, st, depth, begin, commit, params, runnable):
        if self.pool is not None:
            self.sem.acquire()
            self.held = self.conn = self.pool.getconn()
            self.cursors = []
            self.begin_cur, self.commit_cur = self.conn.cursor(), self.conn.cursor()
        while len(self.cursors) < depth:
            self.cursors.append(self.conn.cursor())
        curs = self.cursors[:depth]
        ex = [c.execute for c in curs]
        rd = [_reader(c, st) for c in curs]
        sql, P = self._params(st, params)
        bex = cex = bsql = csql = None
        if begin is not None:
            bex, bsql = self.begin_cur.execute, begin.sql
            cex, csql = self.commit_cur.execute, commit.sql

        if depth == 1 and bex is None:
            ex0, rd0 = ex[0], rd[0]
            if P is None:
                def batch(i):
                    ex0(sql)
                    return (rd0(),)
            else:
                def batch(i):
                    ex0(sql, P[i])
                    return (rd0(),)
        elif P is None:
            er = list(zip(ex, rd))

            def batch(i):
                if bex is not None:
                    bex(bsql)
                out = []
                for e, r in er:
                    e(sql)
                    out.append(r())
                if cex is not None:
                    cex(csql)
                return out
        else:
            erk = list(zip(ex, rd, range(depth)))

            def batch(i):
                base = i * depth
                if bex is not None:
                    bex(bsql)
                out = []
                for e, r, k in erk:
                    e(sql, P[base + k])
                    out.append(r())
                if cex is not None:
                    cex(csql)
                return out

        def columns(k):
            desc = curs[k].description
            return [(c.name, c.type_code) for c in desc] if desc else []

        return Plan(batch, runnable, columns=columns)

    def run_block(self, n, plan, kinds, buf):
        return run_sync(n, plan.batch, kinds, buf)

    def release_run(self):
        if self.held is not None:
            held, self.held, self.conn = self.held, None, None
            self.cursors = []
            self.begin_cur = self.commit_cur = None
            try:
                self.pool.putconn(held, close=bool(held.closed))
            except psycopg2.Error:
                pass
            finally:
                self.sem.release()

    def run_load(self, st, spec, params, kinds, buf):
        sql, P = self._params(st, params)
        pool, sem = self.pool, self.sem
        getconn, putconn = pool.getconn, pool.putconn
        acquire, release = sem.acquire, sem.release

        if st.has_rows is not False:
            def query(i):
                acquire()
                try:
                    c = getconn()
                    try:
                        with c.cursor() as cur:
                            cur.execute(sql, None if P is None else P[i])
                            if cur.description is None:
                                return ()
                            return cur.fetchall()
                    finally:
                        putconn(c, close=bool(c.closed))
                finally:
                    release()
        else:
            def query(i):
                acquire()
                try:
                    c = getconn()
                    try:
                        with c.cursor() as cur:
                            cur.execute(sql, None if P is None else P[i])
                            return ()
                    finally:
                        putconn(c, close=bool(c.closed))
                finally:
                    release()
        return run_load_threads(spec, query, kinds, buf)

    def run_stream(self, st, mode, fetch, params, fold):
        conn = self.conn
        if self.stream_cur is None:
            self.stream_cur = conn.cursor()
        cur = self.stream_cur
        P = self._params(st, [params])[1][0] if params is not None else None
        idiom = psycopg2_stream.idiom(conn, cur, st, mode, fetch, P, _reader(cur, st))
        return (idiom.line,) + psycopg2_stream.read(conn, idiom, fold)

    def _classify(self, exc):
        """The failure reply for exc, or None when it is not psycopg2's."""
        if not isinstance(exc, psycopg2.Error):
            return None
        sqlstate = exc.pgcode
        if sqlstate in _GONE_STATES or (not sqlstate and isinstance(
                exc, (psycopg2.OperationalError, psycopg2.InterfaceError))):
            return AdapterError("io", "connection lost: %s" % describe_exception(exc))
        if sqlstate:
            return AdapterError("query", exc.diag.message_primary or str(exc).strip(), sqlstate)
        return AdapterError("protocol", describe_exception(exc))

    def load_failure(self, exc):
        err = self._classify(exc)
        if err is not None:
            if err.kind == "io":
                err.error = "a pool connection was lost: %s" % describe_exception(exc)
            return err
        if isinstance(exc, AdapterError):
            return exc
        return AdapterError("protocol", "internal error: %s" % describe_exception(exc))

    def failure(self, exc):
        conn = self.conn
        err = self._classify(exc)
        if err is None:  # a value psycopg2's typecasters refuse: ValueError ...
            err = exc if isinstance(exc, AdapterError) else AdapterError(
                "protocol", describe_exception(exc))
        if conn is None or conn.closed:
            return err if err.kind == "io" else AdapterError(
                "io", "connection lost: %s" % describe_exception(exc))
        if err.kind == "io":
            return err
        try:
            if conn.info.transaction_status != IDLE:
                with conn.cursor() as cur:
                    cur.execute("ROLLBACK")
        except psycopg2.Error as e2:
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
            pool.closeall()
        elif self.conn is not None:
            conn, self.conn = self.conn, None
            conn.close()
