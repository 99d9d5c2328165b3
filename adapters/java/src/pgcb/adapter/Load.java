package pgcb.adapter;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import com.google.gson.JsonObject;

/**
 * The timed load (docs/bridge-protocol.md, "load"): up to `concurrency`
 * queries in flight over the client's pool, one platform thread per worker
 * (the way a JDBC application serves requests: a thread each, a pooled
 * connection each, blocking), all of the adapter's threads pinned to the
 * measuring CPU by the bridge.
 *
 * Each worker takes the next query number and:
 *   closed  issues it at once; its latency counts from the System.nanoTime()
 *           read before it asks the pool for a connection;
 *   rate    query i is due at start + i / rate; the worker parks until then
 *           and issues it; its latency counts from the due time.
 * Issuing stops when (elapsed >= duration and issued >= min_queries) or
 * issued == limit (rate mode: by the query's due time, however late). A
 * query's latency ends after its rows were converted and folded (the
 * worker's own Fold). Results are appended in completion order (under a
 * lock: one append per query). After the first failure no worker issues
 * again; those in flight finish or fail. Once the issuing has ended (a
 * worker returned, or, min_queries 0, the duration passed), the queries in
 * flight are abandoned when none completed for SETTLE_NS (and, in rate
 * mode, the last issued one is due): the load fails with kind io saying how
 * many never answered. The main thread only waits meanwhile (a 10 ms poll):
 * no bridge I/O, no printing, no forced collection.
 */
final class Load {
    static final long SETTLE_NS = 2_000_000_000L;

    /** One load request, checked. */
    static final class Spec {
        int stmt;
        double rate; // 0: closed
        int concurrency;
        long durationNs, minQueries;
        /** Queries that may be issued: max_queries, or fewer (badAt). */
        long limit;
        String[][] args;
        /** The first query whose count of parameters is not the statement's, or -1. */
        long badAt;
        int nparams;
        int[] kinds;
        int ncols;

        String[] args(long i) {
            return args == null ? null : args[(int) i];
        }
    }

    static final class Result {
        long[] lat = new long[0], rows = new long[0];
        int[] folds = new int[0];
        int done;
        long wall, cpu, late;
        Failure fail;

        static Result failed(Failure f) {
            Result r = new Result();
            r.fail = f;
            return r;
        }
    }

    /** One query through the pool: its rows, its fold in fold[0] (f: the worker's own). */
    interface Query {
        long run(long i, Fold f, int[] fold);
    }

    static Spec spec(JsonObject rq, boolean connected, int pool, Map<Integer, Client.Stmt> stmts) {
        if (!connected)
            throw Failure.protocol("load before connect");
        if (pool == 0)
            throw Failure.protocol("load: connect had no pool (\"pool\": P)");
        Long id = Req.integer(rq, "stmt");
        Client.Stmt st = id == null ? null : stmts.get(id.intValue());
        if (st == null)
            throw Failure.protocol("load of a statement that was not prepared");
        String mode = Req.string(rq, "mode");
        Long conc = Req.integer(rq, "concurrency"), maxq = Req.integer(rq, "max_queries");
        Long dur = Req.integer(rq, "duration_ns"), minq = Req.integer(rq, "min_queries");
        Double rate = Req.number(rq, "rate");
        if (!"closed".equals(mode) && !"rate".equals(mode))
            throw Failure.protocol("load: mode must be \"closed\" or \"rate\", not \"" + mode + "\"");
        if (conc == null || maxq == null || conc < 1 || maxq < 1 || maxq > Integer.MAX_VALUE)
            throw Failure.protocol("load: concurrency " + conc + " and max_queries " + maxq + " must be >= 1");
        if (dur == null || dur < 0 || (minq != null && minq < 0))
            throw Failure.protocol("load: duration_ns and min_queries must be integers >= 0");
        if ("rate".equals(mode) && (rate == null || !(rate > 0)))
            throw Failure.protocol("load: rate mode needs a rate > 0");
        Spec s = new Spec();
        s.stmt = id.intValue();
        s.rate = "rate".equals(mode) ? rate : 0;
        s.concurrency = conc.intValue();
        s.durationNs = dur;
        s.minQueries = minq == null ? 0 : minq;
        s.args = Req.params(rq);
        s.badAt = -1;
        s.nparams = st.nparams;
        int n = maxq.intValue();
        if (s.args != null) {
            if (s.args.length < n)
                throw Failure.protocol("load: " + s.args.length + " parameter sets for max_queries " + n);
            for (int i = 0; i < n && s.badAt < 0 && st.nparams >= 0; i++)
                if (s.args[i].length != st.nparams)
                    s.badAt = i;
        } else if (st.nparams > 0) {
            s.badAt = 0;
        }
        s.limit = s.badAt >= 0 ? s.badAt : n;
        s.kinds = Fold.parseKinds(rq.get("kinds"));
        s.ncols = st.ncols;
        return s;
    }

    /** The load's shared state. */
    private static final class Run {
        final Spec s;
        final Query q;
        final long start, endBy;
        final AtomicLong issued = new AtomicLong();
        final AtomicInteger returned = new AtomicInteger();
        /** Counted down once the load's CPU time was read: workers end after it (CpuClock). */
        final java.util.concurrent.CountDownLatch read = new java.util.concurrent.CountDownLatch(1);
        volatile boolean stopped, abandoned;
        Failure fail; // guarded by this
        final Result out = new Result();
        long lastDone; // guarded by this
        long lastDue; // rate mode: the latest due time issued, since start; guarded by this
        long lateIndex = -1, late; // guarded by this

        Run(Spec s, Query q, long start) {
            this.s = s;
            this.q = q;
            this.start = start;
            this.endBy = start + s.durationNs;
            int n = (int) s.limit;
            out.lat = new long[n];
            out.rows = new long[n];
            out.folds = new int[n];
            lastDone = start;
        }

        synchronized void failed(Failure f) {
            if (fail == null)
                fail = f;
            stopped = true;
        }

        synchronized void completed(long lat, long rows, int fold, long t1) {
            if (abandoned)
                return;
            int k = out.done++;
            out.lat[k] = Math.max(1, lat);
            out.rows[k] = rows;
            out.folds[k] = fold;
            lastDone = t1;
        }

        synchronized int progress() {
            return out.done + returned.get();
        }

        void work() {
            Fold f = new Fold(s.kinds, s.ncols);
            int[] fold = new int[1];
            double period = s.rate > 0 ? 1e9 / s.rate : 0;
            try {
                while (!stopped) {
                    long i = issued.getAndIncrement();
                    if (i >= s.limit)
                        break;
                    long t0 = System.nanoTime();
                    if (period > 0) {
                        long due = start + (long) (i * period);
                        if (due >= endBy && i >= s.minQueries)
                            break;
                        synchronized (this) {
                            lastDue = Math.max(lastDue, due - start);
                        }
                        while (t0 < due && !stopped) {
                            LockSupport.parkNanos(due - t0);
                            t0 = System.nanoTime();
                        }
                        if (stopped)
                            break;
                        synchronized (this) {
                            if (i > lateIndex) {
                                lateIndex = i;
                                late = Math.max(0, t0 - due);
                            }
                        }
                        t0 = due;
                    } else if (t0 >= endBy && i >= s.minQueries) {
                        break;
                    }
                    long rows;
                    try {
                        rows = q.run(i, f, fold);
                    } catch (Failure e) {
                        if (!abandoned)
                            failed(e);
                        break;
                    }
                    long t1 = System.nanoTime();
                    completed(t1 - t0, rows, fold[0], t1);
                }
            } catch (RuntimeException e) {
                failed(Failure.protocol("internal error in a load worker: " + Failure.describe(e)));
            } finally {
                returned.incrementAndGet();
            }
            // A thread's CPU time is read while it lives: stay until it was.
            try {
                read.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Run the load: q runs query i through the pool (waiting for a free connection) and folds it. */
    static Result run(Spec s, Query q) {
        int workers = (int) Math.max(1, Math.min(s.concurrency, s.limit));
        long cpu0 = Block.cpuNs();
        Run r = new Run(s, q, System.nanoTime());
        Thread[] ts = new Thread[workers];
        for (int w = 0; w < workers; w++) {
            ts[w] = new Thread(r::work, "pgcb-load-" + w);
            ts[w].setDaemon(true); // an abandoned one must not keep the JVM alive
            ts[w].start();
        }
        // The issuing ends when a worker returns; a load bounded by its
        // duration alone has ended by then at the latest (all may be stuck).
        while (r.returned.get() == 0 && (s.minQueries > 0 || System.nanoTime() < r.endBy))
            sleepMs(10);
        int seen = -1;
        long quietSince = System.nanoTime();
        while (r.returned.get() < workers) {
            int p = r.progress();
            long now = System.nanoTime();
            long dueLeft;
            synchronized (r) {
                dueLeft = r.lastDue - (now - r.start);
            }
            if (p != seen || dueLeft > 0) {
                seen = p;
                quietSince = now;
            } else if (now - quietSince >= SETTLE_NS) {
                synchronized (r) {
                    r.abandoned = true;
                    if (r.fail == null)
                        r.fail = new Failure("io", (workers - r.returned.get()) + " of the load's queries never "
                                + "answered: none completed for " + SETTLE_NS / 1_000_000 + " ms after the issuing "
                                + "ended (a connection of the pool broke without an error from the client)");
                }
                r.stopped = true;
                break;
            }
            sleepMs(10);
        }
        Result out;
        synchronized (r) {
            out = r.out;
            out.cpu = Block.cpuNs() - cpu0;
            out.wall = (out.done == 0 ? System.nanoTime() : r.lastDone) - r.start;
            out.late = r.late;
            out.fail = r.fail;
            r.abandoned = true; // nothing is appended from here on
        }
        r.read.countDown();
        return out;
    }

    private static void sleepMs(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static Reply reply(Result res) {
        Reply r = res.fail != null ? Reply.failure(res.fail) : Reply.ok();
        r.obj.addProperty("done", res.done);
        r.obj.addProperty("wall_ns", Math.max(0, res.wall));
        r.obj.addProperty("cpu_ns", Math.max(0, res.cpu));
        r.obj.addProperty("late_ns", res.late);
        if (res.done > 0)
            r.arraysFrame(res.lat, res.rows, res.folds, res.done);
        return r;
    }
}
