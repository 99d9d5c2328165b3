"""The timed block: `n` batches back to back, each timed, its rows counted and
its values folded (docs/bridge-protocol.md, "run").

Contract of run_sync / run_async:
    batch(i)   does batch i (the client's idiom for `depth` executions, with
               begin/commit around them when asked) and returns the list of
               the executions' row lists; it raises to fail the batch.
    returns    (done, cpu_ns, exc): `done` batches completed, their samples,
               rows and folds in buf[0:done]; cpu_ns the process CPU time
               (time.process_time_ns: every thread) from just before the first
               batch to just after the last (or the failure); exc the
               exception that ended the block early, else None.

Timing: time.perf_counter_ns (CLOCK_MONOTONIC), one read per batch: the end
of one batch is the start of the next. Between the first read and the last
the loop does nothing but the batches and three stores into preallocated
array('Q'/'I') storage: no I/O, no printing, no forced GC (Python's own
cyclic GC may run, as it would in the application: it is the language's
cost). A batch is timed with its fold, as the C drivers fold inside
run_batch.
"""
import base64
import sys
from array import array
from time import perf_counter_ns, process_time_ns

from .fold import fold_batch

assert array("Q").itemsize == 8 and array("I").itemsize == 4, "u64/u32 arrays needed"
_BIG_ENDIAN = sys.byteorder == "big"


class Buffers:
    """Samples (u64 ns), rows (u64) and folds (u32) of one block, reused across
    blocks; grown (never shrunk) to the largest block seen."""

    def __init__(self):
        self.cap = 0
        self.samples = self.rows = self.folds = None
        self.reserve(1024)

    def reserve(self, n: int) -> None:
        if n > self.cap:
            self.cap = n
            self.samples = array("Q", bytes(8 * n))
            self.rows = array("Q", bytes(8 * n))
            self.folds = array("I", bytes(4 * n))

    def raw(self, done: int) -> bytes:
        """The arrays frame's payload of the first `done` batches
        (docs/bridge-protocol.md, "arrays": "frame"): samples and rows as
        little-endian u64, then folds as little-endian u32, copied, not
        encoded."""
        parts = [self.samples[:done], self.rows[:done], self.folds[:done]]
        if _BIG_ENDIAN:
            for p in parts:
                p.byteswap()
        return b"".join(p.tobytes() for p in parts)

    def encoded(self, done: int) -> dict:
        """The reply fields of the first `done` batches: base64 (bytes, which
        frames.Channel.encode writes as JSON strings) of little-endian
        integers, the protocol's typed-array form."""
        return {"samples": _b64(self.samples, done), "rows": _b64(self.rows, done),
                "folds": _b64(self.folds, done)}


def _b64(arr, n: int) -> bytes:
    part = arr[:n]
    if _BIG_ENDIAN:
        part.byteswap()
    return base64.b64encode(part)


def run_sync(n, batch, kinds, buf):
    """The block for a blocking client: see the module's contract."""
    samples, rows, folds = buf.samples, buf.rows, buf.folds
    fold = fold_batch
    clock = perf_counter_ns
    i = 0
    cpu0 = process_time_ns()
    t0 = clock()
    try:
        for i in range(n):
            h, r = fold(batch(i), kinds)
            t1 = clock()
            samples[i] = t1 - t0
            rows[i] = r
            folds[i] = h
            t0 = t1
    except Exception as exc:  # the batch failed: the block ends with it
        return i, process_time_ns() - cpu0, exc
    return n, process_time_ns() - cpu0, None


async def run_async(n, batch, kinds, buf):
    """The same for an asyncio client: batch(i) is a coroutine function, and
    the whole block runs in this one coroutine (no event-loop start per
    batch)."""
    samples, rows, folds = buf.samples, buf.rows, buf.folds
    fold = fold_batch
    clock = perf_counter_ns
    i = 0
    cpu0 = process_time_ns()
    t0 = clock()
    try:
        for i in range(n):
            h, r = fold(await batch(i), kinds)
            t1 = clock()
            samples[i] = t1 - t0
            rows[i] = r
            folds[i] = h
            t0 = t1
    except Exception as exc:
        return i, process_time_ns() - cpu0, exc
    return n, process_time_ns() - cpu0, None
