package pgcb.adapter;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * The process's CPU time (user + system, every thread: the garbage
 * collector's and the JIT compilers' too), in ns, for the protocol's
 * cpu_ns.
 *
 * The JDK's own figure (OperatingSystemMXBean.getProcessCpuTime()) comes
 * from times(2), in ticks of 10 ms: a 100 ms block would read 0 or 10 ms,
 * 20 ms ... and the bridge's "CPU outside the batches" (its exact clock
 * minus ours, at least 0 per block) would gain ms per block. Linux keeps
 * every thread's time on the CPU in ns: the first field of
 * /proc/self/task/TID/schedstat. The sum over the process's threads is
 * read here, each thread's file opened once and read again from its start
 * (procfs renders it anew), the directory listed each time for threads that
 * came; a thread that ended keeps the time last read of it (its time
 * since then is lost: the JVM's threads live as long as it does -- the
 * compiler threads too, as -XX:-UseDynamicNumberOfCompilerThreads in
 * jvm.options keeps them -- and a load's workers are read before they end).
 * The kernel brings a running thread's figure up to date only at its
 * scheduler ticks (4 ms here: schedstat of the calling thread moved in
 * steps of 4 ms), so the calling thread's own time is read from its CPU
 * clock instead (ThreadMXBean.getCurrentThreadCpuTime(),
 * CLOCK_THREAD_CPUTIME_ID, which the kernel brings up to date); pinned to
 * one CPU, no other thread runs while it reads, so theirs are current. About
 * 70 us a read with 14 threads. Without /proc, the JDK's figure.
 */
final class CpuClock {
    private CpuClock() {}

    private static final File TASKS = new File("/proc/self/task");
    private static final Map<String, RandomAccessFile> FILES = new HashMap<>();
    private static final Map<String, Long> LAST = new HashMap<>();
    private static final byte[] BUF = new byte[128];
    private static long ended;
    private static boolean procfs = TASKS.isDirectory();
    private static final java.lang.management.ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    /** The calling thread's task id ("" if unknown). */
    private static final ThreadLocal<String> SELF = ThreadLocal.withInitial(() -> {
        try {
            return new File("/proc/thread-self").getCanonicalFile().getName();
        } catch (IOException e) {
            return "";
        }
    });

    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    static synchronized long processNs() {
        if (!procfs)
            return OS.getProcessCpuTime();
        String[] tids = TASKS.list();
        if (tids == null) {
            procfs = false;
            return OS.getProcessCpuTime();
        }
        for (String t : tids)
            if (!FILES.containsKey(t))
                try {
                    FILES.put(t, new RandomAccessFile("/proc/self/task/" + t + "/schedstat", "r"));
                } catch (IOException e) {
                    // it ended meanwhile
                }
        long sum = ended;
        String self = SELF.get();
        for (Iterator<Map.Entry<String, RandomAccessFile>> it = FILES.entrySet().iterator(); it.hasNext();) {
            Map.Entry<String, RandomAccessFile> e = it.next();
            long ns = e.getKey().equals(self) ? THREADS.getCurrentThreadCpuTime() : read(e.getValue());
            if (ns < 0) { // ended: keep what was last read of it
                Long last = LAST.remove(e.getKey());
                ended += last == null ? 0 : last;
                sum += last == null ? 0 : last;
                close(e.getValue());
                it.remove();
            } else {
                LAST.put(e.getKey(), ns);
                sum += ns;
            }
        }
        return sum;
    }

    /** The first field of a schedstat file, or -1 when the thread is gone. */
    private static long read(RandomAccessFile f) {
        try {
            f.seek(0);
            int n = f.read(BUF);
            long v = 0;
            int i = 0;
            for (; i < n && BUF[i] >= '0' && BUF[i] <= '9'; i++)
                v = v * 10 + (BUF[i] - '0');
            return i > 0 ? v : -1;
        } catch (IOException e) {
            return -1;
        }
    }

    private static void close(RandomAccessFile f) {
        try {
            f.close();
        } catch (IOException e) {
            // nothing to keep
        }
    }
}
