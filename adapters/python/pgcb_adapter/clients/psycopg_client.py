"""The `psycopg` client: psycopg 3, synchronous, through its idiomatic fast path.

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
"""
import logging

import psycopg
from psycopg import pq
from psycopg.conninfo import make_conninfo

from .. import runtime
from ..block import run_sync
from ..errors import AdapterError, describe_exception
from ..sqltext import to_psycopg
from .base import Client as BaseClient
from .base import check_conn
from .base import Plan

TUPLES_OK = pq.ExecStatus.TUPLES_OK
IDLE = pq.TransactionStatus.IDLE
_IMPL = {"python": "pure Python", "c": "C", "binary": "C, binary wheel"}

logging.getLogger("psycopg").setLevel(logging.ERROR)


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


class Client(BaseClient):
    name = "psycopg"
    json_parsed = True  # its json/jsonb loaders return json.loads() of the text
    options = {"pipeline": ("auto", ("auto", "no"),
                            "auto: pipeline mode for a batch of more than one statement")}

    def __init__(self, options, result_format=None):
        super().__init__(options, result_format)
        self.binary = result_format == "binary"
        self.conn = None
        self.pipeline_off = ""
        if self.opts["pipeline"] == "auto" and not psycopg.Pipeline.is_supported():
            self.pipeline_off = psycopg.Pipeline._not_supported_reason() or "not supported"
        self.use_pipeline = self.opts["pipeline"] == "auto" and not self.pipeline_off
        self.cursors = []
        self.begin_cur = self.commit_cur = None

    def info(self):
        v = pq.version()
        libpq = "%d.%d" % (v // 10000, v % 100) if v >= 100000 else str(v)
        links = "psycopg %s (%s, libpq %s); %s" % (
            psycopg.__version__, _IMPL.get(pq.__impl__, pq.__impl__), libpq, runtime())
        if self.pipeline_off:
            links += " [no pipeline mode: %s]" % self.pipeline_off
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

    def connect(self, conn):
        check_conn(conn, "psycopg")
        try:
            self.conn = psycopg.connect(make_conninfo(**conn), autocommit=True)
        except psycopg.Error as e:
            raise AdapterError("connect", str(e)) from None
        self.begin_cur = self.conn.cursor(binary=self.binary)
        self.commit_cur = self.conn.cursor(binary=self.binary)

    def prepare(self, number, name, sql, nparams):
        return Statement(sql)

    def param_count(self, st):
        return st.nparams

    def _cursors(self, n):
        while len(self.cursors) < n:
            self.cursors.append(self.conn.cursor(binary=self.binary))
        return self.cursors[:n]

    def plan(self, st, depth, begin, commit, params, runnable):
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
        return run_sync(n, plan.batch, kinds, buf)

    def failure(self, exc):
        conn = self.conn
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

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None
