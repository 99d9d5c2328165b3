"""The timed load of a blocking client: up to `concurrency` queries in flight
over the client's pool, each on a thread of its own (docs/bridge-protocol.md,
"load"), as a threaded WSGI server's request threads share a psycopg2 pool.

Contract of run_load_threads(spec, query, kinds, buf): load.run_load's,
except that query(i) is a plain (blocking) function doing query i through
the client's pool idiom (take a connection, execute, read every row, give
it back) and returning its rows; it raises to fail the query. It releases
the GIL while it waits on its socket, as psycopg2 does in libpq calls.

`concurrency` threads (daemons), started once per load. A thread takes the
next query number under a lock, and:
    closed   issues it at once (its latency counts from then, before the
             pool's acquire: a wait for a free connection is in it);
    rate     query i is due at start + i / rate; the thread sleeps until
             then (Event.wait: woken at once by a failure) and issues it;
             its latency counts from the due time; late_ns as load.py's.
Issuing stops by load.py's rule; the fold of a query is fold_batch of its
one result, inside its latency. After a failure no thread issues again.
Once the issuing has ended (a thread returned, or, min_queries 0,
duration_ns has passed) the threads still in a query are given until none
completed or failed for load.SETTLE_S (and the last issued one is due); a
query a broken connection never answers is then abandoned (a thread cannot
be cancelled: it may finish later, but stores nothing), and the load fails
with kind io saying how many were never answered.
"""
import threading
from time import perf_counter_ns, process_time_ns

from .errors import AdapterError
from .fold import fold_batch
from .load import RATE, SETTLE_S


def run_load_threads(spec, query, kinds, buf):
    """See the module's contract."""
    lat, nrows, folds = buf.samples, buf.rows, buf.folds
    clock = perf_counter_ns
    fold = fold_batch
    limit, minq = spec.limit, spec.min_queries
    nthreads = max(1, min(spec.concurrency, limit))
    lock = threading.Lock()
    stop = threading.Event()  # set by the first failure
    first_out = threading.Event()  # a thread returned: the issuing has ended
    issued = done = failed = 0
    last_i = -1
    late = 0
    failure = None
    closed = False  # the load has returned: nothing is stored any more
    max_due = 0
    cpu0 = process_time_ns()
    start = last = clock()
    end_by = start + spec.duration_ns
    period = 1e9 / spec.rate if spec.mode == RATE else 0.0

    def fail(exc):
        nonlocal failure, failed
        with lock:
            failed += 1
            if failure is None:
                failure = exc
                stop.set()

    def store(t_from, h, r):
        nonlocal done, last
        t1 = clock()
        with lock:
            if closed:
                return
            lat[done] = (t1 - t_from) or 1
            nrows[done] = r
            folds[done] = h
            done += 1
            last = t1

    def closed_loop():
        nonlocal issued
        while not stop.is_set():
            with lock:
                i = issued
                if i >= limit:
                    return
                t0 = clock()
                if t0 >= end_by and i >= minq:
                    return
                issued = i + 1
            try:
                h, r = fold((query(i),), kinds)
            except Exception as exc:
                fail(exc)
                return
            store(t0, h, r)

    def paced_loop():
        nonlocal issued, last_i, late, max_due
        while not stop.is_set():
            with lock:
                i = issued
                if i >= limit:
                    return
                due = start + int(i * period)
                if due >= end_by and i >= minq:  # the schedule's count, however late
                    return
                issued = i + 1
                if due > max_due:
                    max_due = due
            now = clock()
            if due > now:
                if stop.wait((due - now) * 1e-9):
                    return
                now = clock()
            with lock:
                if i > last_i:
                    last_i, late = i, (now - due if now > due else 0)
            try:
                h, r = fold((query(i),), kinds)
            except Exception as exc:
                fail(exc)
                return
            store(due, h, r)

    loop = paced_loop if spec.mode == RATE else closed_loop

    def worker():
        try:
            loop()
        finally:
            first_out.set()

    threads = [threading.Thread(target=worker, daemon=True, name="pgcb-load-%d" % k)
               for k in range(nthreads)]
    for t in threads:
        t.start()
    first_out.wait(None if minq else spec.duration_ns * 1e-9)
    seen = -1
    while True:
        unsettled = [t for t in threads if t.is_alive()]
        progress = done + failed
        if not unsettled or (progress == seen and clock() >= max_due):
            break
        seen = progress
        until = clock() + int((SETTLE_S + max(0, max_due - clock()) * 1e-9) * 1e9)
        for t in unsettled:
            t.join(max(0.0, (until - clock()) * 1e-9))
    with lock:
        closed = True
        if unsettled:
            stop.set()
            if failure is None:
                failure = AdapterError(
                    "io", "%d of the load's queries never answered: none completed for %d ms "
                    "after the issuing ended (a connection of the pool broke without an error "
                    "from the client)" % (len(unsettled), SETTLE_S * 1000))
        cpu_ns = process_time_ns() - cpu0
        if not done:
            last = clock()
        return done, last - start, cpu_ns, late, failure
