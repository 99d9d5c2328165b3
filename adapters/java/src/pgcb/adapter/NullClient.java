package pgcb.adapter;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;

import com.google.gson.JsonObject;

/**
 * The "null" client: no server, no I/O. Like drivers/null, a statement
 * yields the rows of the benchmark table, n per execution from the last
 * whole-word "LIMIT <digits>" in its SQL (else option rows, default 1): row
 * i (1-based) is (Integer i, Integer 1337, "wat", null, Boolean false),
 * typed int4, int4, text, text, bool, built once per statement and folded
 * every batch as pgjdbc's values are (PgjdbcClient.contribution). It
 * measures what the bridge and the JVM cost. Parameters are accepted and
 * ignored. A pool (connect with "pool": P) is a Semaphore of P permits.
 *
 * Options, besides rows: fail_after=N (batches, or a load's queries, that
 * succeed; then XX000), hang_after=N (a load's queries answered; the rest
 * never are), and the JVM's own faults, in the timed blocks (never a dump)
 * of a statement of N rows, so that a run's other groups go on: oom_rows=N
 * (its first batch allocates until the heap is exhausted: the JVM's
 * OutOfMemoryError, which -XX:+ExitOnOutOfMemoryError turns into the
 * process's end, saying so on stderr), pause_rows=N with pause_ms=M (its
 * first batch stops for M ms, as a collector's pause would: the runner's
 * batch_timeout_ms sees it).
 */
final class NullClient implements Client {
    private static final long MAX_ROWS = 1_000_000;
    private static final String[] NAMES = {"id", "int_value", "string_value", "null_value", "bool_value"};
    private static final int[] TYPES = {23, 23, 25, 25, 16};

    private final long rows, failAfter, hangAfter, oomRows, pauseRows, pauseMs;
    private long batchesOk, loadOk;
    private int pool;
    private final Map<Integer, Object[][]> stmts = new HashMap<>();
    /** What oom_after holds on to. */
    private final List<long[]> hoard = new ArrayList<>();

    NullClient(Map<String, String> opts) {
        Client.checkOptions("null", opts, "rows", "fail_after", "hang_after", "oom_rows", "pause_rows",
                "pause_ms", "jit_warmup_ms");
        rows = get(opts, "rows", 1);
        failAfter = get(opts, "fail_after", 0);
        hangAfter = get(opts, "hang_after", 0);
        oomRows = get(opts, "oom_rows", 0);
        pauseRows = get(opts, "pause_rows", 0);
        pauseMs = get(opts, "pause_ms", 0);
        if ((pauseRows > 0) != (pauseMs > 0))
            throw Failure.config("null: pause_rows and pause_ms go together");
    }

    private static long get(Map<String, String> opts, String k, long def) {
        String v = opts.get(k);
        return v == null ? def : Client.count("null", k, v, MAX_ROWS);
    }

    @Override
    public Info info() {
        Info i = new Info();
        i.client = "null";
        i.clientVersion = Session.ADAPTER_VERSION;
        i.links = "null (no I/O: benchmark rows built in Java); " + Jvm.summary();
        i.noIo = true;
        i.load = true;
        return i;
    }

    @Override
    public void connect(JsonObject conn, int pool) {
        this.pool = pool;
    }

    /** The digits of the last whole-word "LIMIT <digits>" in sql, as drivers/null finds them; null: none. */
    static String findLimit(String sql) {
        java.util.regex.Matcher m = java.util.regex.Pattern
                .compile("(?<![\\w\\x80-\\x{10FFFF}])(?i:limit)\\s+(\\d+)(?![\\w\\x80-\\x{10FFFF}])").matcher(sql);
        String found = null;
        while (m.find())
            found = m.group(1);
        return found;
    }

    @Override
    public Stmt prepare(int id, String sql) {
        long n = rows;
        String d = findLimit(sql);
        if (d != null) {
            try {
                n = Long.parseLong(d);
            } catch (NumberFormatException e) {
                n = Long.MAX_VALUE;
            }
            if (n > MAX_ROWS)
                throw new Failure("unsupported", "null: LIMIT " + d + " is above " + MAX_ROWS + " rows");
        }
        Object[][] rs = new Object[(int) n][];
        for (int i = 0; i < n; i++)
            rs[i] = new Object[] {i + 1, 1337, "wat", null, Boolean.FALSE};
        stmts.put(id, rs);
        return new Stmt(NAMES.length, -1);
    }

    /** Fold one execution of rows into h. */
    private static int foldRows(Fold f, Object[][] rows, int h) {
        f.start(NAMES.length);
        for (Object[] row : rows) {
            f.row();
            for (int j = 0; j < row.length; j++) {
                Object v = row[j];
                if (v == null)
                    f.nul(j);
                else
                    f.add(j, PgjdbcClient.contribution(v, f.kind(j)));
            }
        }
        return f.finish(h);
    }

    /** The JVM's faults on request: in a timed block of a statement of n rows. */
    private void faults(long n) {
        if (oomRows > 0 && n == oomRows)
            for (;;)
                hoard.add(new long[1 << 20]); // 8 MiB at a time until the heap is gone
        if (pauseRows > 0 && n == pauseRows) {
            try {
                Thread.sleep(pauseMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static Failure injected() {
        return Failure.query("XX000", "null client: injected failure");
    }

    @Override
    public Block run(Plan p) {
        Object[][] rs = stmts.get(p.stmt);
        Fold f = new Fold(p.kinds, NAMES.length);
        Block b = Block.timed(p.batches, (i, out) -> {
            if (failAfter > 0 && batchesOk >= failAfter)
                throw injected();
            if (!p.dump)
                faults(rs.length);
            int h = Fold.OFFSET;
            for (int k = 0; k < p.depth; k++)
                h = foldRows(f, rs, h);
            batchesOk++;
            out[0] = h;
            return (long) p.depth * rs.length;
        });
        if (p.dump && b.fail == null) {
            List<String[]> names = new ArrayList<>();
            List<int[]> oids = new ArrayList<>();
            List<Object[][]> rows = new ArrayList<>();
            for (int k = 0; k < p.depth; k++) {
                names.add(NAMES);
                oids.add(TYPES);
                rows.add(rs);
            }
            b.results = w -> Dump.results(w, names, oids, rows);
        }
        return b;
    }

    @Override
    public Load.Result load(Load.Spec s) {
        Object[][] rs = stmts.get(s.stmt);
        if (rs == null)
            return Load.Result.failed(Failure.protocol("load of a statement that was not prepared"));
        Semaphore permits = new Semaphore(Math.max(1, pool));
        return Load.run(s, (i, f, fold) -> {
            boolean hang, fail;
            synchronized (this) {
                hang = hangAfter > 0 && ++loadOk > hangAfter;
                fail = !hang && failAfter > 0 && ++batchesOk > failAfter;
            }
            if (hang)
                hang(); // holding no permit: the others still run
            if (fail)
                throw injected();
            permits.acquireUninterruptibly();
            try {
                fold[0] = foldRows(f, rs, Fold.OFFSET);
                return rs.length;
            } finally {
                permits.release();
            }
        });
    }

    /** No server, so no result to stream (hello says stream: false). */
    @Override
    public Stream.Result stream(Stream.Spec s) {
        return Stream.Result.failed(new Failure("unsupported", "null: the null client talks to no server: it has "
                + "no result to read buffered or streamed"), 0);
    }

    /** Never answered: a pool connection broken silently (the load's settle time ends it). */
    private static void hang() {
        for (;;)
            try {
                Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException e) {
                // still never
            }
    }

    @Override
    public void close() {
        stmts.clear();
    }
}
