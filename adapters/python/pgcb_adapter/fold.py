"""The fold of a batch (docs/bridge-protocol.md, "The fold").

    mix(h, x) = ((h ^ (x mod 2^32)) * 16777619) mod 2^32      (FNV-1a, 32 bits)
    h = 2166136261
    for each execution's result (a list of rows), in order:
        h = mix(h, number of rows)
        if it has rows, for each column j, in order:
            h = mix(h, number of None in column j)
            h = mix(h, sum of column j's contributions mod 2^32)

Contributions by the column's kind: `int` the value, `bool` 1/0, `str` the
length in code points (len()), `any` 0. Each column is one tuple of
zip(*rows), and its count and sum run at C speed (list.count, sum, filter,
map): no Python code runs per value, and every value of every row is read in
every batch. `filter(None, col)` drops None and also 0/False/"" -- which
contribute 0 anyway. A value of another type than its kind says (a str in an
`int` column) raises TypeError, which fails the batch.

Kinds are compiled once per `run` by compile_kinds() into codes, padded with
ANY to the most columns a PostgreSQL row can have, so that zip() never drops
a column when the bridge sent fewer kinds than the result has columns.

ColumnFold is the `stream` request's fold ("stream"): no hash, but per
column [kind, nulls, sum mod 2^32], the kind the adapter's own, from the
first non-null value the client delivered in the column; it folds a result
chunk by chunk (a list of rows at a time), the same C-speed way.
"""
from functools import partial
from operator import is_not

ANY, SUM, LEN = 0, 1, 2
KIND_CODES = {"any": ANY, "int": SUM, "bool": SUM, "str": LEN}
MAX_COLUMNS = 1664  # PostgreSQL's MaxTupleAttributeNumber

FNV_BASIS = 2166136261
FNV_PRIME = 16777619
_PADDED_ANY = (ANY,) * MAX_COLUMNS


def compile_kinds(kinds):
    """The `kinds` of a run request (None or a list of "int"/"bool"/"str"/"any")
    as a tuple of codes for fold_batch. Raises ValueError for anything else."""
    if kinds is None:
        return _PADDED_ANY
    if not isinstance(kinds, list):
        raise ValueError("kinds must be null or an array")
    codes = []
    for k in kinds:
        code = KIND_CODES.get(k) if isinstance(k, str) else None
        if code is None:
            raise ValueError("unknown kind %r (known: any, bool, int, str)" % (k,))
        codes.append(code)
    return tuple(codes) + (ANY,) * max(0, MAX_COLUMNS - len(codes))


def fold_batch(results, kinds):
    """(fold, rows) of one batch: results is the list of the executions' row
    lists (each row a tuple or any iterable of the columns, e.g. an asyncpg
    Record), kinds from compile_kinds(). The hot path: keep it lean."""
    h = 2166136261
    total = 0
    for rows in results:
        n = len(rows)
        total += n
        h = ((h ^ n) * 16777619) & 0xFFFFFFFF
        if n:
            for col, k in zip(zip(*rows), kinds):
                h = ((h ^ col.count(None)) * 16777619) & 0xFFFFFFFF
                if k == 1:
                    h = ((h ^ (sum(filter(None, col)) & 0xFFFFFFFF)) * 16777619) & 0xFFFFFFFF
                elif k:
                    h = ((h ^ (sum(map(len, filter(None, col))) & 0xFFFFFFFF))
                         * 16777619) & 0xFFFFFFFF
                else:
                    h = (h * 16777619) & 0xFFFFFFFF
    return h, total


MASK = 0xFFFFFFFF
UNDECIDED = -1  # a column that has shown no non-null value yet
_not_none = partial(is_not, None)


def kind_of(value):
    """(kind, code) of a column whose first non-null value is `value`: bool
    for a boolean, int for any other integer, str for a string, else any."""
    if type(value) is bool:
        return "bool", SUM
    if isinstance(value, int):
        return "int", SUM
    if isinstance(value, str):
        return "str", LEN
    return "any", ANY


class ColumnFold:
    """The per-column fold of one result read in chunks. add(chunk) folds a
    non-empty list of rows (tuples, or any iterable of the columns, e.g.
    asyncpg Records), every row of one width; rows counts them; columns() is
    the reply's [[kind, nulls, sum], ...] ([] for no rows). Per chunk, per
    column: one count(None) and one sum, at C speed; until a column has
    shown a non-null value, a C-speed filter finds its first one."""

    __slots__ = ("rows", "names", "codes", "nulls", "sums")

    def __init__(self):
        self.rows = 0
        self.names = self.codes = self.nulls = self.sums = None

    def add(self, chunk):
        n = len(chunk)
        self.rows += n
        codes = self.codes
        if codes is None:
            width = len(chunk[0])
            codes = self.codes = [UNDECIDED] * width
            self.names = ["any"] * width
            self.nulls = [0] * width
            self.sums = [0] * width
        nulls, sums = self.nulls, self.sums
        for j, col in enumerate(zip(*chunk)):
            k = codes[j]
            c = col.count(None)
            nulls[j] += c
            if k == UNDECIDED:
                if c == n:
                    continue
                self.names[j], k = kind_of(next(filter(_not_none, col)))
                codes[j] = k
            if k == SUM:
                sums[j] = (sums[j] + sum(filter(None, col))) & MASK
            elif k == LEN:
                sums[j] = (sums[j] + sum(map(len, filter(None, col)))) & MASK

    def columns(self):
        if not self.rows or self.codes is None:
            return []
        return [[k, c, s] for k, c, s in zip(self.names, self.nulls, self.sums)]
