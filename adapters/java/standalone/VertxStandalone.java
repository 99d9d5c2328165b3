package pgcb.standalone;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgConnection;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;

/**
 * Standalone.java's vertx: vertx-pg-client 5 set up with its public API the
 * way the adapter's VertxClient sets it up for its defaults, for one
 * connection (no pool):
 *
 * - Vertx.builder() with VertxOptions: one event loop (setEventLoopPoolSize
 *   (1)), worker and internal blocking pools of 1, Netty's native (epoll)
 *   transport preferred (it connects to a Unix-domain socket: PGHOST that
 *   starts with / is the socket directory, vertx-pg-client's own rule), the
 *   blocked-thread checker off (an interval of a million hours);
 * - PgConnectOptions: host, port, database, user, password from the PG*
 *   variables (as Standalone's pgjdbc: PGHOST default /var/run/postgresql,
 *   PGPORT 5432; PGUSER default the OS user, PGDATABASE default the user,
 *   as libpq; PGPASSWORD if set), setCachePreparedStatements(true) (a named
 *   statement parsed and described at its first execution, the priming
 *   batch's), setPipeliningLimit(1024) (the adapter's default
 *   pipelining_limit); no TLS (vert.x's default, sslmode=disable);
 * - one PgConnection.connect(vertx, options).
 *
 * An execution is conn.preparedQuery(sql).execute(tuple), the tuple an
 * empty Tuple.tuple() made once (the SQL has no parameters; the adapter
 * builds one empty Tuple per execution before a block). Results are binary
 * (vertx-pg-client's choice). A batch of DEPTH issues its DEPTH executions
 * at once, pipelined on the one connection; each result is consumed as it
 * completes (in order: one connection answers in order), and when the last
 * of the batch completed the clock is read and the next batch issued.
 *
 * As the adapter runs a block, the loops run on the event loop: the main
 * thread hands one over (Context.runOnContext) and waits for it on a
 * CountDownLatch; the priming batch, the warm-up, the timed batches (and
 * each chunk of PGCB_STANDALONE_CURVE) are one such loop each. The timed
 * loop reads the process's CPU time and the collectors' counts on the event
 * loop just before its first batch and just after its last, its samples go
 * into Standalone's preallocated array. Connecting and closing wait on the
 * Futures (toCompletionStage().toCompletableFuture().get()), as the
 * adapter's await.
 *
 * links, as the adapter's hello: "vertx-pg-client VERSION (binary,
 * pipelining 1024, one event loop, epoll); JDK VERSION FLAGS" (the JDK's
 * vendor name and the flags that decide a measurement, as adapter's
 * Jvm.summary).
 */
final class VertxStandalone {
    /** The adapter's default pipelining_limit. */
    private static final int PIPELINING_LIMIT = 1024;
    private static final String[] NAMES = {"id", "int_value", "string_value", "null_value", "bool_value"};

    private final PgConnection conn;
    private final Context ctx;
    private final String sql;
    private final int depth;
    private final Tuple none = Tuple.tuple();
    private int[] cols;
    private long sink;

    private VertxStandalone(PgConnection conn, Context ctx, String sql, int depth) {
        this.conn = conn;
        this.ctx = ctx;
        this.sql = sql;
        this.depth = depth;
    }

    /** Block for f's outcome (the main thread, never the event loop). */
    private static <T> T await(Future<T> f) throws Throwable {
        try {
            return f.toCompletionStage().toCompletableFuture().get();
        } catch (ExecutionException e) {
            throw e.getCause() != null ? e.getCause() : e;
        }
    }

    private static String describe(Throwable e) {
        String m = e.getMessage();
        return m == null || m.isEmpty() ? e.getClass().getName() : m;
    }

    /** vertx-pg-client's release: its jar's Implementation-Version, else its jar's name. */
    private static String version() {
        try {
            Class<?> k = PgConnection.class;
            Package p = k.getPackage();
            String v = p != null ? p.getImplementationVersion() : null;
            if (v == null) {
                java.net.URL at = k.getProtectionDomain().getCodeSource().getLocation();
                String f = new java.io.File(at.toURI()).getName(); // vertx-pg-client-5.0.12.jar
                v = f.replaceFirst("^vertx-pg-client-", "").replaceFirst("\\.jar$", "");
            }
            return v;
        } catch (Exception | LinkageError e) {
            Standalone.fail("cannot load vertx-pg-client (" + describe(e) + "); run adapters/java/install.sh");
            return null;
        }
    }

    /** The adapter's Jvm.summary(): "Temurin 25.0.1 -XX:+UseSerialGC -Xms256m ...". */
    private static String jvm() {
        String vv = System.getProperty("java.vendor.version");
        String name = "OpenJDK";
        if (vv != null && !vv.isEmpty()) {
            int dash = vv.indexOf('-');
            name = dash > 0 ? vv.substring(0, dash) : vv;
        }
        List<String> flags = new ArrayList<>();
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments())
            if (a.matches("-XX:[+-]?Use\\w*GC|-Xm[sxn]\\S*|-XX:ActiveProcessorCount=\\S*|-XX:TieredStopAtLevel=\\S*"
                    + "|-XX:[+-]AlwaysPreTouch|-Xint|-XX:[+-]TieredCompilation|-XX:CICompilerCount=\\S*"))
                flags.add(a);
        return name + " " + System.getProperty("java.version")
                + (flags.isEmpty() ? " (no flags)" : " " + String.join(" ", flags));
    }

    static void main(int depth, double timeMs, long chunkNs, String sql) {
        String version = version();
        String host = Standalone.env("PGHOST", "/var/run/postgresql"), port = Standalone.env("PGPORT", "5432");
        if (!port.matches("[0-9]{1,5}"))
            Standalone.fail("PGPORT \"" + port + "\" is not a port number");
        String user = Standalone.env("PGUSER", System.getProperty("user.name"));
        PgConnectOptions o = new PgConnectOptions().setHost(host).setPort(Integer.parseInt(port))
                .setCachePreparedStatements(true).setPipeliningLimit(PIPELINING_LIMIT)
                .setUser(user).setDatabase(Standalone.env("PGDATABASE", user));
        if (System.getenv("PGPASSWORD") != null)
            o.setPassword(System.getenv("PGPASSWORD"));
        Vertx vertx = Vertx.builder().with(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(1)
                .setInternalBlockingPoolSize(1).setPreferNativeTransport(true)
                .setBlockedThreadCheckInterval(1_000_000).setBlockedThreadCheckIntervalUnit(TimeUnit.HOURS))
                .build();
        if (o.isUsingDomainSocket() && !vertx.isNativeTransportEnabled())
            Standalone.fail("a Unix-domain socket (" + host + ") needs Netty's epoll transport, which did not load ("
                    + describe(vertx.unavailableNativeTransportCause()) + ")");
        Context ctx = vertx.getOrCreateContext();
        PgConnection conn = null;
        try {
            conn = await(PgConnection.connect(vertx, o));
        } catch (Throwable e) {
            Standalone.fail(describe(e) + " (" + (host.startsWith("/") ? host + "/.s.PGSQL." + port : host + ":"
                    + port) + ")");
        }
        VertxStandalone v = new VertxStandalone(conn, ctx, sql, depth);
        v.run(null, 1, 0); // priming
        if (chunkNs > 0)
            v.curve(chunkNs, (long) (timeMs * 1e6));
        v.run(null, 200, System.nanoTime() + Standalone.WARMUP_NS);
        long[] samples = new long[Standalone.CAPACITY];
        Loop t = v.run(samples, 1, System.nanoTime() + (long) (timeMs * 1e6));
        String links = "vertx-pg-client " + version + " (binary, pipelining " + PIPELINING_LIMIT
                + ", one event loop, epoll); " + jvm();
        try {
            await(conn.close());
            await(vertx.close());
        } catch (Throwable e) {
            // ending anyway
        }
        Standalone.report("vertx", Arrays.copyOf(samples, t.n), depth, t.cpu, t.gc, v.sink > 0, links);
    }

    /**
     * One loop on the event loop: batches until at least min are done and
     * the clock passed until (or samples is full); the main thread waits.
     */
    private Loop run(long[] samples, int min, long until) {
        Loop l = new Loop(samples, min, until);
        ctx.runOnContext(x -> l.start());
        try {
            l.done.await();
        } catch (InterruptedException e) {
            Standalone.fail("interrupted");
        }
        if (l.err != null)
            Standalone.fail(describe(l.err));
        return l;
    }

    /** The JIT's curve: chunks of chunkNs from a cold start, for totalNs (Standalone's, as loops). */
    private void curve(long chunkNs, long totalNs) {
        java.lang.management.CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        long[] s = new long[1 << 20];
        long start = System.nanoTime(), execs = depth;
        while (System.nanoTime() - start < totalNs) {
            Loop l = run(s, 1, System.nanoTime() + chunkNs);
            int n = l.n;
            execs += (long) n * depth;
            long[] c = Arrays.copyOf(s, n);
            Arrays.sort(c);
            System.out.printf("{\"t_ms\": %d, \"executions\": %d, \"median_ns\": %d, \"cpu_ns_per_query\": %d, "
                    + "\"jit_ms\": %d}%n", (l.end - start) / 1_000_000, execs, c[n / 2], l.cpu / ((long) n * depth),
                    jit.getTotalCompilationTime());
        }
    }

    /** The public benchmark's consume(): every value of every row, the sum checked. */
    private void consume(RowSet<Row> rs) {
        if (cols == null) {
            List<String> names = rs.columnsNames();
            int[] at = new int[NAMES.length];
            for (int k = 0; k < NAMES.length; k++)
                if ((at[k] = names.indexOf(NAMES[k])) < 0)
                    throw new IllegalStateException("no column " + NAMES[k] + " in the result");
            cols = at;
        }
        long sum = 0, ids = 0;
        int n = 0;
        for (Row r : rs) {
            ids += r.getInteger(cols[0]);
            int iv = r.getInteger(cols[1]);
            String sv = r.getString(cols[2]);
            String nv = r.getString(cols[3]);
            boolean bv = r.getBoolean(cols[4]);
            sum += iv + sv.length() + (nv == null ? 0 : nv.length()) + (bv ? 1 : 0);
            n++;
        }
        if (sum != 1340L * n)
            throw new IllegalStateException("unexpected sum " + sum + " for " + n + " rows");
        sink += sum + ids;
    }

    /** A loop of batches on the event loop (see run). */
    private final class Loop implements Handler<AsyncResult<RowSet<Row>>> {
        final long[] samples;
        final int min, cap;
        final long until;
        final CountDownLatch done = new CountDownLatch(1);
        int n, pending;
        long prev, end, cpu0, cpu;
        long[] gc0, gc;
        Throwable err;

        Loop(long[] samples, int min, long until) {
            this.samples = samples;
            this.min = min;
            this.until = until;
            this.cap = samples == null ? Integer.MAX_VALUE : samples.length;
        }

        void start() {
            if (samples != null) {
                gc0 = Standalone.gc();
                cpu0 = Standalone.cpuNs();
            }
            prev = System.nanoTime();
            issue();
        }

        /** The batch: its DEPTH executions at once, pipelined. */
        void issue() {
            pending = depth;
            for (int k = 0; k < depth; k++)
                conn.preparedQuery(sql).execute(none).onComplete(this);
        }

        @Override
        public void handle(AsyncResult<RowSet<Row>> r) {
            if (r.failed()) {
                if (err == null)
                    err = r.cause();
            } else if (err == null) {
                try {
                    consume(r.result());
                } catch (RuntimeException e) {
                    err = e;
                }
            }
            if (--pending > 0)
                return;
            if (err != null) {
                finish();
                return;
            }
            long now = System.nanoTime();
            if (samples != null)
                samples[n] = now - prev;
            n++;
            prev = now;
            if ((n >= min && now >= until) || n == cap) {
                finish();
                return;
            }
            issue();
        }

        void finish() {
            if (samples != null) {
                cpu = Standalone.cpuNs() - cpu0;
                long[] g = Standalone.gc();
                gc = new long[] {g[0] - gc0[0], g[1] - gc0[1]};
            }
            end = prev;
            done.countDown();
        }
    }
}
