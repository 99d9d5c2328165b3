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
 * The JVM's JIT warm-up of a group (docs/clients.md, "Java: the JIT").
 *
 * HotSpot runs new code in its interpreter, then compiles it with C1 (with
 * profiling), then, once hot enough, with C2, on compiler threads that
 * share the pinned CPU with the batches: until then a batch measures
 * interpreted or C1 code, and the compilers' own CPU. From a cold start,
 * pgjdbc at LIMIT 1 needs about 7 s of batches here (some 60 000
 * executions) before the compilers fall idle, at LIMIT 500 about 10 s: far
 * more than the runner's warm-up (warmup_ms, 1 s by default).
 *
 * Session arms one at phase "warmup" and drops it at phase "order", so
 * that it never runs in an execution order. Before each of the runner's
 * timed warm-up blocks while it is armed, slice() runs that block's own
 * batches (its statement, depth, begin/commit, parameters cycled) in
 * chunks of about CHUNK_NS, for at most SLICE_NS: untimed as far as the
 * runner is concerned (none of it is in its samples), one exchange never
 * long (the runner's batch_timeout_ms watches every exchange). It is done
 * when, over the last WINDOW chunks, the JIT compiled for no more than IDLE
 * of their time and their best median batch is not below the best before
 * them by more than GAIN -- the compilers idle, the per-chunk median no
 * longer falling -- or after jit_warmup_ms in all (the bound; 10 s by
 * default: with the runner's default warm-up of 1 s, ten blocks of 100 ms,
 * there is room for all of it). The runner's own warm-up blocks run as
 * always; its budgets, orders and statistics are untouched.
 *
 * PGCB_JAVA_JIT_LOG=FILE (a diagnostic) appends one line per warm-up: its
 * chunks' medians in microseconds, the JIT's compile time at each, and why
 * it ended; and at each phase "order" the JIT's total compile time then
 * (orderMark), so that compilations during an order show.
 */
final class JitWarmup {
    static final long CHUNK_NS = 100_000_000L;
    static final long SLICE_NS = 1_000_000_000L;
    static final int WINDOW = 10;
    static final double GAIN = 0.02;
    /** The JIT's share of a window's time below which it counts as idle. */
    static final double IDLE = 0.02;

    private final CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    private final boolean jitTime = jit != null && jit.isCompilationTimeMonitoringSupported();
    /** Per chunk: {median batch ns, the chunk's ns, the JIT's total compile ms at its end}. */
    private final List<long[]> chunks = new ArrayList<>();
    private final long boundNs;
    private long spentNs, executions;
    private int n = 1;
    private String why;
    private String what = "";

    JitWarmup(long boundNs) {
        this.boundNs = boundNs;
    }

    boolean done() {
        return why != null;
    }

    /** Up to SLICE_NS of chunks of p's batches, before the runner's block of p. */
    void slice(Client cl, Plan p) {
        if (what.isEmpty())
            what = "stmt " + p.stmt + " depth " + p.depth;
        long start = System.nanoTime();
        while (why == null && System.nanoTime() - start < SLICE_NS) {
            if (spentNs >= boundNs) {
                why = "bound";
                break;
            }
            long t0 = System.nanoTime();
            Block b = cl.run(p.withBatches(n));
            spentNs += System.nanoTime() - t0;
            if (b.fail != null || b.done == 0) {
                why = "failed: " + (b.fail != null ? b.fail.getMessage() : "no batch");
                break; // the runner's block meets it again, and says so
            }
            long sum = 0;
            for (int i = 0; i < b.done; i++)
                sum += b.samples[i];
            long[] s = Arrays.copyOf(b.samples, b.done);
            Arrays.sort(s);
            chunks.add(new long[] {s[s.length / 2], sum, jitTime ? jit.getTotalCompilationTime() : 0});
            executions += (long) b.done * p.depth;
            if (stable())
                why = "stable";
            n = (int) Math.max(1, Math.min(1 << 20, CHUNK_NS * b.done / Math.max(1, sum)));
        }
    }

    /** Over the last WINDOW chunks: the JIT idle, and the median no longer falling? */
    private boolean stable() {
        int k = chunks.size();
        if (k <= WINDOW)
            return false;
        long before = Long.MAX_VALUE, last = Long.MAX_VALUE, ns = 0;
        for (int i = 0; i < k; i++) {
            long[] c = chunks.get(i);
            if (i < k - WINDOW) {
                before = Math.min(before, c[0]);
            } else {
                last = Math.min(last, c[0]);
                ns += c[1];
            }
        }
        if (last < before * (1 - GAIN))
            return false;
        long jitMs = chunks.get(k - 1)[2] - chunks.get(k - 1 - WINDOW)[2];
        return !jitTime || jitMs * 1e6 <= IDLE * ns;
    }

    /** At a phase "order": the JIT's total compile time, in PGCB_JAVA_JIT_LOG if set. */
    static void orderMark() {
        String path = System.getenv("PGCB_JAVA_JIT_LOG");
        CompilationMXBean j = ManagementFactory.getCompilationMXBean();
        if (path == null || path.isEmpty() || j == null || !j.isCompilationTimeMonitoringSupported())
            return;
        try (PrintWriter w = new PrintWriter(new FileWriter(path, true))) {
            w.println("order: jit ms " + j.getTotalCompilationTime());
        } catch (IOException e) {
            System.err.println("pgcb-adapter-java: PGCB_JAVA_JIT_LOG: " + e.getMessage());
        }
    }

    /** The warm-up is over (phase "order"): its line in PGCB_JAVA_JIT_LOG, if set. */
    void end() {
        String path = System.getenv("PGCB_JAVA_JIT_LOG");
        if (path == null || path.isEmpty() || chunks.isEmpty())
            return;
        StringBuilder b = new StringBuilder();
        b.append(what).append(": ").append(chunks.size()).append(" chunks, ").append(executions)
                .append(" executions, ").append(spentNs / 1_000_000).append(" ms, ")
                .append(why != null ? why : "the runner's warm-up ended first").append("; median us:");
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
