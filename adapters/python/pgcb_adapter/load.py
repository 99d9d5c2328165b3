"""The timed load: up to `concurrency` queries in flight over a client's pool,
on one asyncio event loop (docs/bridge-protocol.md, "load").

Contract of run_load(spec, query, kinds, buf):
    query(i)   a coroutine function doing query i through the client's pool
               idiom (acquire a connection, execute, read every row,
               release) and returning its list of rows; it raises to fail
               the query.
    returns    (done, wall_ns, cpu_ns, late_ns, exc): `done` queries
               completed, their latencies, row counts and folds in
               buf[0:done] in completion order; wall_ns from the load's
               start to its last reply; cpu_ns the process CPU time
               (time.process_time_ns: every thread) over the load; late_ns
               (rate mode) how far behind its due time the last query was
               issued; exc the first failure, else None.

`concurrency` asyncio tasks, created once per load. A task takes the next
query number, and:
    closed   issues it at once (its latency counts from then, before the
             pool's acquire: a wait for a free connection is in it);
    rate     query i is due at start + i / rate; the task sleeps until then
             (asyncio.sleep: the selector loop wakes to the millisecond,
             rounded up) and issues it; its latency counts from the due
             time. A task holds one query at a time, so at most
             `concurrency` are in flight, and a query that finds every
             task busy is issued when one completes, late, its latency
             still from its due time.
Issuing stops when (elapsed >= duration_ns and issued >= min_queries) or
issued == limit (max_queries, or fewer when the parameters of a later query
cannot be bound), where elapsed is, in rate mode, that of the query's due
time. The fold of a query is fold_batch of its one result, exactly as a
`run` of depth 1 folds it, inside its latency. After a failure no task
issues again; the tasks sleeping until a due time are cancelled, those in
flight finish or fail. Once the issuing has ended (the first task returned,
by the stop rule or a failure; or, min_queries 0, duration_ns has passed)
the queries in flight are abandoned as soon as none completed or failed for
SETTLE_S (and, in rate mode, the last issued one is due): a query a broken
connection never answers is cancelled then, and the load fails with kind io
saying how many were never answered. Nothing else
happens between the first clock read and the last reply: no bridge I/O, no
forced GC, no printing.
"""
import asyncio
from time import perf_counter_ns, process_time_ns

from .errors import AdapterError
from .fold import fold_batch

CLOSED, RATE = "closed", "rate"

# How long the queries in flight may take to settle once the issuing ended.
SETTLE_S = 2.0


class LoadSpec:
    """One load request, checked. limit: the queries that may be issued
    (max_queries, or the number of the first whose parameters cannot be
    bound: then pending is its error, reported after the load; a client
    converting parameters lowers both when it finds an earlier one)."""
    __slots__ = ("mode", "concurrency", "rate", "duration_ns", "min_queries", "limit",
                 "pending")

    def __init__(self, mode, concurrency, rate, duration_ns, min_queries, limit, pending=None):
        self.pending = pending
        self.mode = mode
        self.concurrency = concurrency
        self.rate = rate
        self.duration_ns = duration_ns
        self.min_queries = min_queries
        self.limit = limit


async def run_load(spec, query, kinds, buf):
    """See the module's contract."""
    lat, nrows, folds = buf.samples, buf.rows, buf.folds
    clock = perf_counter_ns
    fold = fold_batch
    limit, minq = spec.limit, spec.min_queries
    ntasks = max(1, min(spec.concurrency, limit))
    issued = done = failed = 0
    last_i = -1
    late = 0
    failure = None
    max_due = 0  # rate mode: the latest due time issued
    sleeping = set()
    tasks = []
    cpu0 = process_time_ns()
    start = last = clock()
    end_by = start + spec.duration_ns

    def fail(exc):
        nonlocal failure, failed
        failed += 1
        if failure is None:
            failure = exc
            for k in sleeping:
                tasks[k].cancel()

    async def closed(me):
        nonlocal issued, done, last
        while failure is None:
            i = issued
            if i >= limit:
                return
            t0 = clock()
            if t0 >= end_by and i >= minq:
                return
            issued = i + 1
            try:
                h, r = fold((await query(i),), kinds)
            except Exception as exc:
                fail(exc)
                return
            t1 = clock()
            lat[done] = (t1 - t0) or 1
            nrows[done] = r
            folds[done] = h
            done += 1
            last = t1

    period = 1e9 / spec.rate if spec.mode == RATE else 0.0

    async def paced(me):
        nonlocal issued, done, last, last_i, late, max_due
        while failure is None:
            i = issued
            if i >= limit:
                return
            due = start + int(i * period)
            now = clock()
            if due >= end_by and i >= minq:  # the schedule's count, however late
                return
            issued = i + 1
            max_due = max(max_due, due)
            if due > now:
                sleeping.add(me)
                try:
                    await asyncio.sleep((due - now) * 1e-9)
                except asyncio.CancelledError:
                    return
                finally:
                    sleeping.discard(me)
                if failure is not None:
                    return
                now = clock()
            if i > last_i:
                last_i, late = i, (now - due if now > due else 0)
            try:
                h, r = fold((await query(i),), kinds)
            except Exception as exc:
                fail(exc)
                return
            t1 = clock()
            lat[done] = (t1 - due) or 1
            nrows[done] = r
            folds[done] = h
            done += 1
            last = t1

    worker = paced if spec.mode == RATE else closed
    for k in range(ntasks):
        tasks.append(asyncio.ensure_future(worker(k)))
    # The issuing ends when a task returns; a load bounded by its duration
    # alone has ended by then at the latest (every task may be stuck).
    await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED,
                       timeout=None if minq else spec.duration_ns * 1e-9)
    # A rate load's tasks may still sleep until their due times.
    seen = -1
    while True:
        unsettled = [t for t in tasks if not t.done()]
        progress = done + failed
        if not unsettled or (progress == seen and clock() >= max_due):
            break
        seen = progress
        await asyncio.wait(unsettled, timeout=SETTLE_S + max(0, max_due - clock()) * 1e-9)
    if unsettled:
        fail(AdapterError("io", "%d of the load's queries never answered: none completed for %d "
                          "ms after the issuing ended (a connection of the pool broke without "
                          "an error from the client)" % (len(unsettled), SETTLE_S * 1000)))
        for t in unsettled:
            t.cancel()
        await asyncio.wait(unsettled, timeout=SETTLE_S)
    cpu_ns = process_time_ns() - cpu0
    if not done:
        last = clock()
    return done, last - start, cpu_ns, late, failure
