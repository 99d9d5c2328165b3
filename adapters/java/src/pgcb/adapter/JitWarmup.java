package pgcb.adapter;

import java.io.FileWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The JVM's JIT warm-up, before a group's first timed warm-up block
 * (Session: armed by phase "warmup", disarmed by phase "order", so that it
 * never runs in an execution order).
 *
 * HotSpot runs new code in its interpreter, then compiles it with C1 (with
 * profiling), then, once hot enough, with C2 on a compiler thread that
 * shares the pinned CPU with the batches: until then a batch measures
 * interpreted or C1 code, several times slower. A fixed warm-up (the
 * runner's warmup_ms, 1 s by default) is too short for C2 at the slower
 * groups (docs/clients.md, "Java: the JIT"). So the adapter runs the
 * block's own batches (its statement, depth, begin/commit, parameters
 * cycled) in chunks of about CHUNK_NS, untimed as far as the runner is
 * concerned, and stops when the median batch of the last WINDOW chunks is
 * no longer below the best median before them by more than GAIN -- the
 * per-chunk median stopped falling -- and the JIT compiled for less than
 * IDLE of the window's time; or after the bound (option jit_warmup_ms,
 * default 4 s, kept well below the runner's batch_timeout_ms of 10 s: the
 * block that carries the warm-up must still answer in time). The runner's
 * own warm-up then follows, as for every driver, and its budgets, orders
 * and statistics are untouched.
 *
 * PGCB_JAVA_JIT_LOG=FILE (a diagnostic) appends one line per warm-up: its
 * chunks' medians in microseconds, the JIT's compile time, and why it
 * stopped.
 */
final class JitWarmup {
    static final long CHUNK_NS = 50_000_000L;
    static final int WINDOW = 5;
    static final double GAIN = 0.02;
    /** The JIT's share of a window below which it counts as idle. */
    static final double IDLE = 0.02;

    private JitWarmup() {}

    static void run(Client cl, Plan p, long boundNs) {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean jitTime = jit != null && jit.isCompilationTimeMonitoringSupported();
        List<long[]> chunks = new ArrayList<>(); // {median ns, ns of the chunk, JIT ms at its end}
        long start = System.nanoTime();
        int n = 1;
        String why = "bound";
        long executions = 0;
        while (System.nanoTime() - start < boundNs) {
            Block b = cl.run(p.withBatches(n));
            if (b.fail != null || b.done == 0) {
                why = "failed: " + (b.fail != null ? b.fail.getMessage() : "no batch");
                break; // the timed block meets it again, and says so
            }
            long sum = 0;
            for (int i = 0; i < b.done; i++)
                sum += b.samples[i];
            long[] s = Arrays.copyOf(b.samples, b.done);
            Arrays.sort(s);
            chunks.add(new long[] {s[s.length / 2], sum, jitTime ? jit.getTotalCompilationTime() : 0});
            executions += (long) b.done * p.depth;
            if (stable(chunks, jitTime)) {
                why = "stable";
                break;
            }
            n = (int) Math.max(1, Math.min(1 << 20, CHUNK_NS * b.done / Math.max(1, sum)));
        }
        log(p, chunks, executions, System.nanoTime() - start, why);
    }

    /** Has the median stopped falling over the last WINDOW chunks, with the JIT idle? */
    static boolean stable(List<long[]> c, boolean jitTime) {
        int k = c.size();
        if (k <= WINDOW)
            return false;
        long before = Long.MAX_VALUE, last = Long.MAX_VALUE, ns = 0;
        for (int i = 0; i < k; i++) {
            if (i < k - WINDOW)
                before = Math.min(before, c.get(i)[0]);
            else {
                last = Math.min(last, c.get(i)[0]);
                ns += c.get(i)[1];
            }
        }
        if (last < before * (1 - GAIN))
            return false;
        long jitMs = c.get(k - 1)[2] - c.get(k - 1 - WINDOW)[2];
        return !jitTime || jitMs * 1e6 <= IDLE * ns;
    }

    private static void log(Plan p, List<long[]> chunks, long executions, long ns, String why) {
        String path = System.getenv("PGCB_JAVA_JIT_LOG");
        if (path == null || path.isEmpty())
            return;
        StringBuilder b = new StringBuilder();
        b.append("stmt ").append(p.stmt).append(" depth ").append(p.depth).append(": ").append(chunks.size())
                .append(" chunks, ").append(executions).append(" executions, ").append(ns / 1_000_000)
                .append(" ms, ").append(why).append("; median us:");
        for (long[] c : chunks)
            b.append(' ').append(c[0] / 1000);
        b.append("; jit ms:");
        for (long[] c : chunks)
            b.append(' ').append(c[2]);
        try (PrintWriter w = new PrintWriter(new FileWriter(path, true))) {
            w.println(b);
        } catch (IOException e) {
            System.err.println("pgcb-adapter-java: PGCB_JAVA_JIT_LOG: " + e.getMessage());
        }
    }
}
