"""The `null` client: no server, no I/O (hello `no_io: true`): what the bridge,
Python and the adapter's own loop and fold cost per sample.

A statement yields the rows of the benchmark table: n = the last whole-word
`LIMIT <digits>` of its SQL (case-insensitive; without one, option rows,
default 1); row i (1-based) = (i, 1337, 'wat', None, False), columns id,
int_value, string_value, null_value, bool_value of types 23, 23, 25, 25, 16.
The rows (tuples) are built once per statement. A batch is `depth`
"executions" that each return that list, folded as real results are. begin,
commit and parameters are accepted and ignored, as drivers/null does.

Pool (connect with "pool": P, hello `load: true`): a no-I/O pool of P
tokens in an asyncio.LifoQueue on the client's own event loop; a query of a
load takes a token (waiting, as a real pool's users do, when all P are
out), passes once through the event loop (asyncio.sleep(0): the one wake-up
every real client's query costs), folds the statement's rows and gives the
token back. A run on the pool is a run as above. fail_after counts the
queries of loads as it counts batches.

Stream: none (hello `stream: false`; the request is kind unsupported).

Options (as drivers/null):
    rows = N        rows per execution without a LIMIT (default 1)
    fail_after = N  every batch after the first N successful ones of the
                    connection fails: kind query, SQLSTATE XX000, "null
                    client: injected failure" (default 0: never)
    hang_after = N  every query of a load after the first N successful ones
                    of the connection is never answered (a pool connection
                    broken without an error: the load's settle time; default
                    0: never)
"""
import asyncio

from .. import ADAPTER_VERSION, runtime
from ..block import run_sync
from ..load import run_load
from ..errors import AdapterError, describe_exception
from ..sqltext import find_limit
from .base import Client as BaseClient
from .base import Plan

COLUMNS = [("id", 23), ("int_value", 23), ("string_value", 25), ("null_value", 25),
           ("bool_value", 16)]
MAX_ROWS = 4294967295


class InjectedFailure(Exception):
    pass


def _count(key, value):
    if not (value.isascii() and value.isdigit()) or int(value) > MAX_ROWS:
        raise AdapterError("config", "option %s = %r: expected an integer 0..%d"
                           % (key, value, MAX_ROWS))
    return int(value)


class Client(BaseClient):
    name = "null"
    no_io = True
    load = True
    options = {"rows": ("1", None, "rows per execution when the SQL has no LIMIT <n>"),
               "fail_after": ("0", None, "fail every batch after this many successful ones"),
               "hang_after": ("0", None, "never answer a load's query after this many")}

    def __init__(self, options, result_format=None):
        super().__init__(options, result_format)
        self.rows = _count("rows", self.opts["rows"])
        self.fail_after = _count("fail_after", self.opts["fail_after"])
        self.hang_after = _count("hang_after", self.opts["hang_after"])
        self.batches_ok = 0
        self.pool = None
        self.loop = None

    def info(self):
        return {"client_version": ADAPTER_VERSION, "pipeline": False,
                "links": "null (no I/O: rows from memory); %s" % runtime()}

    def connect(self, conn, pool=None):
        # Nothing to connect to (the bridge sends conn null); a pool is P
        # tokens, made on the loop that will use them.
        if pool is not None:
            self.loop = asyncio.new_event_loop()
            asyncio.set_event_loop(self.loop)

            async def make():
                q = asyncio.LifoQueue()
                for k in range(pool):
                    q.put_nowait(k)
                return q
            self.pool = self.loop.run_until_complete(make())

    def prepare(self, number, name, sql, nparams):
        n = find_limit(sql)
        if n is None:
            n = self.rows
        if n > MAX_ROWS:
            raise AdapterError("unsupported", "null client: LIMIT above %d rows" % MAX_ROWS)
        return [(i, 1337, "wat", None, False) for i in range(1, n + 1)]

    def param_count(self, st):
        return None

    def plan(self, rows, depth, begin, commit, params, runnable):
        results = [rows] * depth
        if not self.fail_after:
            def batch(i):
                return results
        else:
            def batch(i):
                if self.batches_ok >= self.fail_after:
                    raise InjectedFailure()
                self.batches_ok += 1
                return results
        return Plan(batch, runnable, columns=lambda k: COLUMNS)

    def run_block(self, n, plan, kinds, buf):
        return run_sync(n, plan.batch, kinds, buf)

    def run_load(self, rows, spec, params, kinds, buf):
        q = self.pool
        get, put = q.get, q.put_nowait
        sleep = asyncio.sleep
        limited = self.fail_after
        hang = self.hang_after

        async def query(i):
            token = await get()
            try:
                await sleep(0)
                if hang:
                    if self.batches_ok >= hang:
                        await asyncio.Event().wait()  # never set
                    self.batches_ok += 1
                if limited:
                    if self.batches_ok >= limited:
                        raise InjectedFailure()
                    self.batches_ok += 1
                return rows
            finally:
                put(token)
        return self.loop.run_until_complete(run_load(spec, query, kinds, buf))

    def failure(self, exc):
        if isinstance(exc, InjectedFailure):
            return AdapterError("query", "null client: injected failure", "XX000")
        return AdapterError("protocol", "internal error: %s" % describe_exception(exc))

    def close(self):
        if self.loop is not None:
            self.loop.close()
            self.loop = None
