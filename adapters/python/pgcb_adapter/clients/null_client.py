"""The `null` client: no server, no I/O (hello `no_io: true`): what the bridge,
Python and the adapter's own loop and fold cost per sample.

A statement yields the rows of the benchmark table: n = the last whole-word
`LIMIT <digits>` of its SQL (case-insensitive; without one, option rows,
default 1); row i (1-based) = (i, 1337, 'wat', None, False), columns id,
int_value, string_value, null_value, bool_value of types 23, 23, 25, 25, 16.
The rows (tuples) are built once per statement. A batch is `depth`
"executions" that each return that list, folded as real results are. begin,
commit and parameters are accepted and ignored, as drivers/null does.

Options (as drivers/null):
    rows = N        rows per execution without a LIMIT (default 1)
    fail_after = N  every batch after the first N successful ones of the
                    connection fails: kind query, SQLSTATE XX000, "null
                    client: injected failure" (default 0: never)
"""
from .. import ADAPTER_VERSION, runtime
from ..block import run_sync
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
    options = {"rows": ("1", None, "rows per execution when the SQL has no LIMIT <n>"),
               "fail_after": ("0", None, "fail every batch after this many successful ones")}

    def __init__(self, options, result_format=None):
        super().__init__(options, result_format)
        self.rows = _count("rows", self.opts["rows"])
        self.fail_after = _count("fail_after", self.opts["fail_after"])
        self.batches_ok = 0

    def info(self):
        return {"client_version": ADAPTER_VERSION, "pipeline": False,
                "links": "null (no I/O: rows from memory); %s" % runtime()}

    def connect(self, conn):
        pass  # nothing to connect to (the bridge sends conn null)

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

    def failure(self, exc):
        if isinstance(exc, InjectedFailure):
            return AdapterError("query", "null client: injected failure", "XX000")
        return AdapterError("protocol", "internal error: %s" % describe_exception(exc))
