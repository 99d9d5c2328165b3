package pgcb.adapter;

/**
 * A block of batches, timed (docs/bridge-protocol.md, "run"): one
 * System.nanoTime() (CLOCK_MONOTONIC) per batch, the end of one batch the
 * start of the next; between the first clock read and the last, nothing
 * but the batches. The arrays are allocated before the first clock read.
 * The process's CPU time is read around the loop. A RuntimeException a
 * batch lets out (a bug) ends the block as an internal error, kind
 * protocol, keeping the batches done.
 */
final class Block {
    /** One batch: its rows; its fold in fold[0]. Throws a Failure to end the block. */
    interface Batch {
        long run(int i, int[] fold);
    }

    final long[] samples, rows;
    final int[] folds;
    int done;
    long cpuNs;
    Failure fail;
    /** A dump's "results", encoded after the batch (into the reply). */
    Reply.Results results;

    Block(int n) {
        samples = new long[n];
        rows = new long[n];
        folds = new int[n];
    }

    static Block failed(Failure f) {
        Block b = new Block(0);
        b.fail = f;
        return b;
    }

    /** The process's CPU time, ns (CpuClock: every thread's, to the ns). */
    static long cpuNs() {
        return CpuClock.processNs();
    }

    /** Run n batches of f, timed; stops at the first failure. */
    static Block timed(int n, Batch f) {
        Block b = new Block(n);
        int[] fold = new int[1];
        long cpu0 = cpuNs();
        long prev = System.nanoTime();
        int i = 0;
        try {
            for (; i < n; i++) {
                long r = f.run(i, fold);
                long now = System.nanoTime();
                b.samples[i] = Math.max(1, now - prev);
                b.rows[i] = r;
                b.folds[i] = fold[0];
                prev = now;
            }
        } catch (Failure e) {
            b.fail = e;
        } catch (RuntimeException e) {
            e.printStackTrace();
            b.fail = Failure.protocol("internal error: " + Failure.describe(e));
        }
        b.done = i;
        b.cpuNs = cpuNs() - cpu0;
        return b;
    }

    /** The reply: a timed block's arrays in a frame of their own; a failure's or a dump's as base64. */
    Reply reply(boolean dump) {
        Reply r;
        if (fail != null) {
            r = Reply.failure(fail);
            r.obj.addProperty("done", done);
        } else {
            r = Reply.ok();
        }
        if (fail == null && !dump && done > 0)
            r.arraysFrame(samples, rows, folds, done);
        else
            r.arraysBase64(samples, rows, folds, done);
        r.obj.addProperty("cpu_ns", Math.max(0, cpuNs));
        if (fail == null)
            r.results = results;
        return r;
    }
}
