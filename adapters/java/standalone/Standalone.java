package pgcb.standalone;

import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Properties;

/**
 * pgcb-standalone-java -- one Java client, pgjdbc or vertx, timed in the
 * tightest plain loop Java allows, outside pgclientbench: no benchmark
 * library, no bridge. scripts/compare-standalone.sh runs it before and
 * after the runner measures the same client through the bridge, on the same
 * server, query and pinning, with the same JVM flags (java @jvm.options
 * -jar). It shares only the query text with the adapter (nothing of
 * adapters/java/src is compiled in): each client is set up here with its
 * public API the way the adapter sets it up for its defaults
 * (docs/clients.md).
 *
 * pgjdbc, as the adapter's PgjdbcClient: one Connection from
 * DriverManager.getConnection(url, properties) with prepareThreshold=1 and
 * binaryTransfer=false (text results, as the runner's default
 * result_format), a Unix-domain socket through junixsocket's socket factory
 * when PGHOST is a directory; the statement conn.prepareStatement(sql); a
 * batch of DEPTH is DEPTH executeQuery() one after another (pgjdbc cannot
 * pipeline queries with results), on the main thread.
 *
 * vertx (vertx-pg-client 5), as the adapter's VertxClient:
 * VertxStandalone.java (one event loop on Netty's epoll transport, one
 * PgConnection, prepared statements cached, pipelining limit 1024; a batch
 * is DEPTH preparedQuery(sql).execute(tuple) issued at once, pipelined on
 * the one connection; the loops run on the event loop, the main thread
 * waits for each; binary results read with Row's typed getters).
 *
 *   java @jvm.options -jar pgcb-standalone-java.jar pgjdbc|vertx DEPTH TIME_MS SQL
 *
 * Connection: PGHOST (a socket directory or a host; default
 * /var/run/postgresql), PGPORT (default 5432), PGUSER, PGDATABASE,
 * PGPASSWORD if set (as the adapter passes it to the client). One
 * priming batch, then an untimed warm-up of WARMUP_NS (the JIT's: the
 * adapter's bound on its own warm-up, 10 s; from a cold start HotSpot's
 * compilers fall idle after about 7 s at LIMIT 1 and 10 s at LIMIT 500)
 * and at least 200 batches, then batches for TIME_MS: one
 * System.nanoTime() (CLOCK_MONOTONIC) per batch, the end of one is the
 * start of the next, each sample stored in a preallocated array, every
 * value of every row read with its getter (pgjdbc's getInt, getString,
 * getBoolean; vertx's getInteger, getString, getBoolean: the public
 * benchmark's consume(), the sum checked: 1340 a row of benchmark_rows
 * besides its id). The process's CPU time is read just
 * before the first batch and just after the last. Prints one JSON line:
 * client, depth, batches, median_ns, mean_ns, p90_ns, cpu_ns_per_query,
 * gc_collections and gc_ms (the collectors' work over the timed batches),
 * collectors, sink, links.
 *
 * PGCB_STANDALONE_CURVE=CHUNK_MS (a diagnostic of the JIT): no warm-up;
 * from the priming batch on, one JSON line per chunk of CHUNK_MS: its end
 * (ms since the first batch), the executions so far, the chunk's median
 * batch (ns), its CPU per query (ns; the JDK's figure, in ticks of 10 ms:
 * take chunks of 100 ms or more) and the JIT's total compile time (ms);
 * then the usual line.
 *
 * Bad arguments: a usage line, exit 2; a failure: one line, exit 1.
 */
public final class Standalone {
    private static final String PROG = "pgcb-standalone-java";
    private static final String USAGE = "usage: java @jvm.options -jar pgcb-standalone-java.jar pgjdbc|vertx DEPTH "
            + "TIME_MS SQL";
    static final int CAPACITY = 1 << 22; // samples at most, as the Node.js script
    static final long WARMUP_NS = 10_000_000_000L;
    /** The client measured (for fail's message). */
    private static String client = "pgjdbc";

    private Standalone() {}

    static void fail(Object msg) {
        System.err.println(PROG + ": " + client + ": " + String.valueOf(msg).replaceAll("\\s+", " ").trim());
        System.exit(1);
    }

    private static void usage() {
        System.err.println(USAGE);
        System.exit(2);
    }

    static long cpuNs() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    static String env(String k, String def) {
        String v = System.getenv(k);
        return v == null || v.isEmpty() ? def : v;
    }

    private static Connection connect() throws SQLException {
        String host = env("PGHOST", "/var/run/postgresql"), port = env("PGPORT", "5432");
        Properties p = new Properties();
        p.setProperty("prepareThreshold", "1");
        p.setProperty("binaryTransfer", "false");
        p.setProperty("sslmode", "disable");
        if (System.getenv("PGUSER") != null)
            p.setProperty("user", System.getenv("PGUSER"));
        if (System.getenv("PGPASSWORD") != null)
            p.setProperty("password", System.getenv("PGPASSWORD"));
        String h = host;
        if (host.startsWith("/")) {
            h = "localhost";
            p.setProperty("socketFactory", "org.newsclub.net.unix.AFUNIXSocketFactory$FactoryArg");
            p.setProperty("socketFactoryArg", host + "/.s.PGSQL." + port);
        }
        return DriverManager.getConnection("jdbc:postgresql://" + h + ":" + port + "/" + env("PGDATABASE", ""), p);
    }

    /** Column positions of benchmark_rows' columns, from their names. */
    private static int[] columns(ResultSet rs) throws SQLException {
        String[] names = {"id", "int_value", "string_value", "null_value", "bool_value"};
        int[] at = new int[names.length];
        for (int k = 0; k < names.length; k++)
            at[k] = rs.findColumn(names[k]);
        return at;
    }

    private static int[] cols;
    private static long sink;

    /** The public benchmark's consume(): every value of every row, the sum checked. */
    private static void consume(ResultSet rs) throws SQLException {
        if (cols == null)
            cols = columns(rs);
        long sum = 0, ids = 0;
        int n = 0;
        while (rs.next()) {
            ids += rs.getInt(cols[0]);
            int iv = rs.getInt(cols[1]);
            String sv = rs.getString(cols[2]);
            String nv = rs.getString(cols[3]);
            boolean bv = rs.getBoolean(cols[4]);
            sum += iv + sv.length() + (nv == null ? 0 : nv.length()) + (bv ? 1 : 0);
            n++;
        }
        if (sum != 1340L * n)
            fail("unexpected sum " + sum + " for " + n + " rows");
        sink += sum + ids;
    }

    private static void batch(PreparedStatement ps, int depth) throws SQLException {
        for (int k = 0; k < depth; k++)
            try (ResultSet rs = ps.executeQuery()) {
                consume(rs);
            }
    }

    public static void main(String[] args) {
        if (args.length != 4 || !(args[0].equals("pgjdbc") || args[0].equals("vertx")) || args[3].isEmpty())
            usage();
        client = args[0];
        int depth = 0;
        double timeMs = 0;
        try {
            depth = Integer.parseInt(args[1]);
            timeMs = Double.parseDouble(args[2]);
        } catch (NumberFormatException e) {
            usage();
        }
        if (depth < 1 || !(timeMs > 0) || Double.isInfinite(timeMs))
            usage();
        String curve = System.getenv("PGCB_STANDALONE_CURVE");
        long chunkNs = 0;
        if (curve != null && !curve.isEmpty()) {
            try {
                chunkNs = (long) (Double.parseDouble(curve) * 1e6);
            } catch (NumberFormatException e) {
                usage();
            }
        }
        if (client.equals("vertx")) {
            VertxStandalone.main(depth, timeMs, chunkNs, args[3]);
            return;
        }
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement(args[3])) {
            batch(ps, depth); // priming
            if (chunkNs > 0)
                curve(ps, depth, chunkNs, (long) (timeMs * 1e6));
            long warmUntil = System.nanoTime() + WARMUP_NS;
            for (int i = 0; i < 200 || System.nanoTime() < warmUntil; i++)
                batch(ps, depth);

            long[] samples = new long[CAPACITY];
            int n = 0;
            long[] gc0 = gc();
            long cpu0 = cpuNs();
            long stop = System.nanoTime() + (long) (timeMs * 1e6);
            long t0 = System.nanoTime();
            for (;;) {
                batch(ps, depth);
                long t1 = System.nanoTime();
                samples[n++] = t1 - t0;
                t0 = t1;
                if (t1 >= stop || n == CAPACITY)
                    break;
            }
            long cpu1 = cpuNs();
            long[] gc1 = gc();
            String flags = String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments());
            String links = "pgjdbc " + c.getMetaData().getDriverVersion() + " (prepareThreshold=1, text; one query at "
                    + "a time); OpenJDK " + System.getProperty("java.version") + " " + flags;
            report("pgjdbc", Arrays.copyOf(samples, n), depth, cpu1 - cpu0,
                    new long[] {gc1[0] - gc0[0], gc1[1] - gc0[1]}, sink > 0, links);
        } catch (SQLException e) {
            fail(e.getMessage());
        }
    }

    /** The JIT's curve: chunks of chunkNs from a cold start, for totalNs. */
    private static void curve(PreparedStatement ps, int depth, long chunkNs, long totalNs) throws SQLException {
        java.lang.management.CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        long[] s = new long[1 << 20];
        long start = System.nanoTime(), execs = depth;
        while (System.nanoTime() - start < totalNs) {
            long cpu0 = cpuNs();
            int n = 0;
            long end = System.nanoTime() + chunkNs, t0 = System.nanoTime();
            while (t0 < end && n < s.length) {
                batch(ps, depth);
                long t1 = System.nanoTime();
                s[n++] = t1 - t0;
                t0 = t1;
            }
            execs += (long) n * depth;
            long[] c = Arrays.copyOf(s, n);
            Arrays.sort(c);
            System.out.printf("{\"t_ms\": %d, \"executions\": %d, \"median_ns\": %d, \"cpu_ns_per_query\": %d, "
                    + "\"jit_ms\": %d}%n", (t0 - start) / 1_000_000, execs, c[n / 2],
                    (cpuNs() - cpu0) / ((long) n * depth), jit.getTotalCompilationTime());
        }
    }

    /** The collectors' collections and their time (ms) so far. */
    static long[] gc() {
        long[] g = new long[2];
        for (java.lang.management.GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
            g[0] += Math.max(0, b.getCollectionCount());
            g[1] += Math.max(0, b.getCollectionTime());
        }
        return g;
    }

    /** The one JSON line: the timed batches' statistics, the client's links. */
    static void report(String name, long[] samples, int depth, long cpu, long[] gc, boolean sinkOk, String links) {
        int n = samples.length;
        long[] s = samples.clone();
        Arrays.sort(s);
        double median = n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
        double mean = 0;
        for (long x : s)
            mean += x;
        mean /= n;
        long p90 = s[Math.min(n - 1, (int) Math.floor(0.9 * n))];
        String gcs = ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(java.lang.management.GarbageCollectorMXBean::getName).collect(java.util.stream.Collectors.joining(", "));
        System.out.printf("{\"client\": \"%s\", \"depth\": %d, \"batches\": %d, \"median_ns\": %d, "
                + "\"mean_ns\": %d, \"p90_ns\": %d, \"cpu_ns_per_query\": %d, \"gc_collections\": %d, \"gc_ms\": %d, "
                + "\"collectors\": \"%s\", \"sink\": %b, \"links\": \"%s\"}%n",
                name, depth, n, Math.round(median), Math.round(mean), p90,
                Math.round((double) cpu / ((double) n * depth)), gc[0], gc[1], gcs, sinkOk,
                links.replace("\\", "\\\\").replace("\"", "\\\""));
    }
}
