"""The timed reading of one whole result (docs/bridge-protocol.md, "stream").

Contract of read_sync(idiom, fold) / read_async(idiom, fold):
    idiom.open()    issues the query (the client's call) and returns its rows:
                    the list the client holds (buffered), or an iterator of
                    the rows as they arrive (streamed; for read_async an
                    async iterator); a coroutine function for read_async
    idiom.finish()  None, or called after the last row: the idiom done with
                    the result (its cursor closed, its transaction committed)
    idiom.abort()   None, or called after a failure: the idiom's cursor
                    closed, its transaction rolled back; it never raises
    idiom.chunk     rows folded together (>= 1)
    fold            a fold.ColumnFold, empty
    returns         (first_ns, total_ns, cpu_ns, exc): t0 to the first row
                    folded (no rows: total_ns), t0 to the end, the process
                    CPU time (time.process_time_ns: every thread) over the
                    same span; exc None. After a failure (0, 0, cpu_ns,
                    exc), abort() done, and fold.rows counts the rows
                    delivered, those of the last, unfolded chunk included.

Timing: time.perf_counter_ns (CLOCK_MONOTONIC). t0 just before open(); the
first row is folded alone, then its clock is read; the end after the
iterator ended (the client reported the result complete), the last chunk
folded and finish() returned -- an idiom that needs a transaction pays for
it, its BEGIN and COMMIT inside. Rows are taken `chunk` at a time into one
reused list (list.extend of itertools.islice: the iteration at C speed,
the rows a failure cut short kept in the list), folded, and dropped; after
the first row, the first chunk is one row short, so that the chunks line
up with an idiom that delivers `chunk` rows at a time. Nothing else
happens between t0 and the end: no bridge I/O, no forced GC, no printing.
"""
from itertools import islice
from time import perf_counter_ns, process_time_ns

BUFFERED, STREAMED = "buffered", "streamed"
# Rows folded together where the idiom delivers no chunk of its own (a
# buffered result, single-row mode), and at most for one that does.
FOLD_ROWS = 1000


class Idiom:
    """One stream's reading, built by the client outside the timing (see the
    module's contract). line: the reply's `idiom`."""
    __slots__ = ("open", "line", "chunk", "finish", "abort", "streamed")

    def __init__(self, open_, line, chunk=FOLD_ROWS, finish=None, abort=None, streamed=False):
        self.open = open_
        self.line = line
        self.chunk = max(1, chunk)
        self.finish = finish
        self.abort = abort
        self.streamed = streamed


def fold_rows(rows, n, buf, add, clock):
    """Folds the rows of iterator `rows` into add(), the first alone, then
    chunks of n; returns the clock after the first row (0: no rows). A
    failure leaves the rows it cut short in buf."""
    extend, clear = buf.extend, buf.clear
    extend(islice(rows, 1))
    if not buf:
        return 0
    add(buf)
    clear()
    first = clock()
    want = n - 1 or n
    while True:
        extend(islice(rows, want))
        got = len(buf)
        if not got:
            return first
        add(buf)
        clear()
        if got < want:  # the iterator ended: another step would ask it again
            return first
        want = n


def read_sync(idiom, fold):
    """See the module's contract."""
    buf = []
    clock = perf_counter_ns
    cpu0 = process_time_ns()
    t0 = clock()
    try:
        first = fold_rows(iter(idiom.open()), idiom.chunk, buf, fold.add, clock)
        if idiom.finish is not None:
            idiom.finish()
        end = clock()
    except Exception as exc:
        cpu_ns = process_time_ns() - cpu0
        fold.rows += len(buf)
        if idiom.abort is not None:
            idiom.abort()
        return 0, 0, cpu_ns, exc
    cpu_ns = process_time_ns() - cpu0
    total = (end - t0) or 1
    return (first - t0 if first else total) or 1, total, cpu_ns, None


async def read_async(idiom, fold):
    """The same for an asyncio client: open, finish and abort are coroutine
    functions; a streamed idiom's rows an async iterator, each row appended
    to the chunk and the chunk folded when full (no C-speed islice for an
    async iterator)."""
    buf = []
    clock = perf_counter_ns
    add = fold.add
    first = 0
    cpu0 = process_time_ns()
    t0 = clock()
    try:
        rows = await idiom.open()
        if not idiom.streamed:
            first = fold_rows(iter(rows), idiom.chunk, buf, add, clock)
        else:
            n = idiom.chunk
            append, clear = buf.append, buf.clear
            want = 1
            async for row in rows:
                append(row)
                if len(buf) == want:
                    add(buf)
                    clear()
                    if first:
                        want = n
                    else:
                        first = clock()
                        want = n - 1 or n
            if buf:
                add(buf)
                clear()
        if idiom.finish is not None:
            await idiom.finish()
        end = clock()
    except Exception as exc:
        cpu_ns = process_time_ns() - cpu0
        fold.rows += len(buf)
        if idiom.abort is not None:
            await idiom.abort()
        return 0, 0, cpu_ns, exc
    cpu_ns = process_time_ns() - cpu0
    total = (end - t0) or 1
    return (first - t0 if first else total) or 1, total, cpu_ns, None
