package pgcb.adapter;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import javax.sql.DataSource;

import com.google.gson.JsonObject;

/**
 * The "pgjdbc" client: pgjdbc 42.7 (Maven Central's, adapters/java/pom.xml), the
 * JDBC idiom a Java application uses.
 *
 * One Connection from DriverManager.getConnection(url, properties)
 * (Conn.java), autocommit on. pgjdbc's settings: prepareThreshold=1 (its
 * default is 5: the first four executions of a PreparedStatement use the
 * unnamed statement, parsed again each time; with 1 the first execution,
 * the runner's priming one, parses a named statement S_n and every later
 * one only binds it) and binaryTransfer as the run asks (result_format
 * binary: true, pgjdbc's default, which asks for binary results for the
 * types pgjdbc decodes once the statement is named and described; text:
 * false, every result in text, as the C drivers receive it).
 *
 * A statement is conn.prepareStatement(sql) (pgjdbc prepares it on the
 * server at its first execution: the priming), its SQL as a JDBC user
 * writes it (SqlText: ? placeholders). Each execution binds the bridge's
 * text values with setObject(i, v, Types.OTHER) / setNull(i, Types.OTHER)
 * (pgjdbc sends them untyped, as libpq with no parameter types: the server
 * infers), runs ps.execute() and reads every row of ps.getResultSet(),
 * every value converted as Values.java says. A batch of depth > 1 is the
 * depth executions one after another (hello: pipeline false): pgjdbc has no
 * way to keep several queries with results in flight. Its executeBatch()
 * is for statements without results: on 42.5.5 a SELECT in a batch runs
 * with a row limit of 1 and its rows are thrown away (executeBatch returns
 * update counts), so it cannot keep the pipelined suite's semantics.
 * begin and commit: those statements executed before and after the
 * batch; a failure in between is rolled back.
 *
 * The stream request: PgjdbcStream.java.
 *
 * A pool (connect with "pool": P): HikariCP (HikariPool.java); a run
 * borrows one connection for its block, a load's query borrows one per
 * query, prepareStatement() on it (pgjdbc's per-connection statement cache
 * hands back the named statement that connection parsed at its first use).
 *
 * On the wire (hello's "wire"): Parse (named), Bind, Describe (portal),
 * Execute, Sync at the first execution; then Bind (result formats as
 * binaryTransfer says), Execute, Sync: pgjdbc describes a statement once
 * and keeps the row description, a Sync per query, named statements.
 */
final class PgjdbcClient implements Client {
    private final boolean binary;
    private final int prepareThreshold;
    private final String version;

    private Connection conn; // one connection (pool 0)
    private DataSource pool; // or HikariCP's pool
    private HikariPool hikari;

    /** Per statement number: its SQL, and on the one connection its PreparedStatement. */
    private final Map<Integer, SqlText> sqls = new HashMap<>();
    private final Map<Integer, PreparedStatement> stmts = new HashMap<>();
    /** Per statement number: its columns' Values codes (from its first result). */
    private final Map<Integer, int[]> codes = new HashMap<>();

    PgjdbcClient(Map<String, String> opts, String resultFormat) {
        Client.checkOptions("pgjdbc", opts, "prepare_threshold", "jit_warmup_ms");
        binary = "binary".equals(resultFormat);
        prepareThreshold = (int) Client.count("pgjdbc", "prepare_threshold",
                opts.getOrDefault("prepare_threshold", "1"), 1_000_000);
        version = pgjdbcVersionOrFail();
    }

    /** pgjdbc's version; kind config naming its jar and install.sh when it cannot be loaded. */
    private static String pgjdbcVersionOrFail() {
        try {
            Class<?> d = Class.forName("org.postgresql.Driver");
            Object v = Class.forName("org.postgresql.util.DriverInfo").getField("DRIVER_VERSION").get(null);
            return v != null ? v.toString() : String.valueOf(d.getPackage().getImplementationVersion());
        } catch (ReflectiveOperationException | LinkageError e) {
            throw Failure.config("client pgjdbc: cannot load pgjdbc (" + Failure.describe(e) + "); run "
                    + "adapters/java/install.sh (Maven Central's jars into build/adapters/java/lib)");
        }
    }

    @Override
    public Info info() {
        Info i = new Info();
        i.client = "pgjdbc";
        i.clientVersion = version;
        // At most 170 bytes: the bridge keeps that much of links.
        i.links = "pgjdbc " + version + " (prepareThreshold=" + prepareThreshold + ", "
                + (binary ? "binaryTransfer" : "text") + ", one query at a time); " + hikariVersion() + "; "
                + Jvm.summary();
        i.pipeline = false;
        i.noIo = false;
        i.load = true;
        i.stream = true;
        // prepareThreshold 0: pgjdbc never names a statement; it parses and
        // describes it with every execution, and asks for text results (it
        // asks for binary only for a statement it described before the Bind).
        // N >= 1: named from the Nth execution on (the prime, for 1; the
        // warm-up's, for pgjdbc's default 5), described once.
        i.wire = prepareThreshold == 0 ? new String[] {"text", "per_execution", "per_query", "unnamed"}
                : new String[] {binary ? "binary" : "text", "once", "per_query", "named"};
        return i;
    }

    private Properties settings() {
        Properties p = new Properties();
        p.setProperty("prepareThreshold", Integer.toString(prepareThreshold));
        p.setProperty("binaryTransfer", Boolean.toString(binary));
        return p;
    }

    @Override
    public void connect(JsonObject c, int poolSize) {
        Conn cn = Conn.of(c, settings());
        try {
            if (poolSize == 0) {
                conn = DriverManager.getConnection(cn.url, cn.props);
                return;
            }
            hikariOrFail();
            hikari = HikariPool.open(cn, poolSize);
            pool = hikari.dataSource();
        } catch (SQLException e) {
            throw new Failure("connect", "pgjdbc: " + Failure.describe(e.getCause() != null && e.getMessage() == null
                    ? e.getCause() : e) + " (" + cn.where + ")");
        }
    }

    /** "HikariCP 7.1.0" (its jar's Bundle-Version), or "no HikariCP". */
    private static String hikariVersion() {
        try {
            java.net.URL at = Class.forName("com.zaxxer.hikari.HikariConfig").getProtectionDomain().getCodeSource()
                    .getLocation();
            try (java.util.jar.JarFile j = new java.util.jar.JarFile(new java.io.File(at.toURI()))) {
                String v = j.getManifest().getMainAttributes().getValue("Bundle-Version");
                return "HikariCP " + (v != null ? v : "(version unknown)");
            }
        } catch (Exception | LinkageError e) {
            return "no HikariCP";
        }
    }

    /**
     * HikariCP and slf4j are there, or kind config naming their jars and
     * install.sh: checked before HikariPool (which names HikariCP's classes)
     * is loaded, so that their absence fails a pool only.
     */
    private static void hikariOrFail() {
        try {
            Class.forName("com.zaxxer.hikari.HikariDataSource");
            Class.forName("org.slf4j.LoggerFactory");
        } catch (ReflectiveOperationException | LinkageError e) {
            throw Failure.config("client pgjdbc: a pool needs HikariCP and slf4j (" + Failure.describe(e)
                    + "); run adapters/java/install.sh (Maven Central's jars into build/adapters/java/lib)");
        }
    }

    static int pid(Connection c) throws SQLException {
        return c.unwrap(org.postgresql.PGConnection.class).getBackendPID();
    }

    @Override
    public Stmt prepare(int id, String sql) {
        SqlText t = SqlText.of(sql);
        sqls.put(id, t);
        if (conn != null) {
            try {
                stmts.put(id, conn.prepareStatement(t.jdbc));
            } catch (SQLException e) {
                throw Conn.classify(e, conn);
            }
        }
        return new Stmt(0, t.nparams);
    }

    /** What every batch of a run uses. */
    private final class Exec {
        final Connection c;
        final PreparedStatement ps, begin, commit;
        final SqlText sql;
        final Plan p;
        final int stmt;
        final Fold f;
        /** A dump's results (null: none kept). */
        final List<Object[][]> keep;
        final List<int[]> keepCodes = new ArrayList<>();
        final List<String[]> keepNames = new ArrayList<>();

        Exec(Connection c, Plan p, Map<Integer, PreparedStatement> on) {
            this.c = c;
            this.p = p;
            this.stmt = p.stmt;
            this.sql = sqls.get(p.stmt);
            this.ps = on.get(p.stmt);
            this.begin = p.begin >= 0 ? on.get(p.begin) : null;
            this.commit = p.commit >= 0 ? on.get(p.commit) : null;
            this.f = new Fold(p.kinds, p.ncols);
            this.keep = p.dump ? new ArrayList<>() : null;
        }

        /** Batch i: begin, the depth executions, commit; its rows, its fold in out[0]. */
        long batch(int i, int[] out) {
            if (p.badAt >= 0 && p.badAt / p.depth == i) {
                String[] a = p.params == null ? new String[0] : p.params[(int) p.badAt];
                throw countRefusal(a.length, p.nparams);
            }
            try {
                if (begin != null)
                    begin.execute();
                int h = Fold.OFFSET;
                long total = 0;
                for (int k = 0; k < p.depth; k++) {
                    bind(ps, sql.order, p.args(i, k));
                    h = execution(h);
                    total += f.nrows;
                }
                if (commit != null)
                    commit.execute();
                out[0] = h;
                return total;
            } catch (SQLException e) {
                Failure fl = Conn.classify(e, c);
                if (begin != null && !"io".equals(fl.kind))
                    fl = rollback(c, fl);
                throw fl;
            }
        }

        /** One execution, every value read and folded into h (and kept for a dump). */
        private int execution(int h) throws SQLException {
            if (!ps.execute()) {
                f.start(0);
                if (keep != null) {
                    keep.add(new Object[0][]);
                    keepCodes.add(new int[0]);
                    keepNames.add(new String[0]);
                }
                return f.finish(h);
            }
            try (ResultSet rs = ps.getResultSet()) {
                int[] cs = codes.get(stmt);
                if (cs == null) {
                    cs = Values.codes(rs.getMetaData());
                    codes.put(stmt, cs);
                }
                f.start(cs.length);
                if (keep == null) {
                    while (rs.next()) {
                        f.row();
                        for (int j = 0; j < cs.length; j++)
                            Values.fold(rs, j, cs[j], f);
                    }
                } else {
                    keepResult(rs, cs);
                }
                return f.finish(h);
            }
        }

        /** A dump's execution: each value converted once, folded and kept. */
        private void keepResult(ResultSet rs, int[] cs) throws SQLException {
            List<Object[]> rows = new ArrayList<>();
            while (rs.next()) {
                f.row();
                Object[] row = new Object[cs.length];
                for (int j = 0; j < cs.length; j++) {
                    Object v = Values.get(rs, j, cs[j]);
                    row[j] = v;
                    if (v == null)
                        f.nul(j);
                    else
                        f.add(j, contribution(v, f.kind(j)));
                }
                rows.add(row);
            }
            ResultSetMetaData md = rs.getMetaData();
            String[] names = new String[cs.length];
            int[] oids = new int[cs.length];
            for (int j = 0; j < cs.length; j++) {
                names[j] = md.getColumnLabel(j + 1);
                oids[j] = Values.oid(md, j + 1);
            }
            keep.add(rows.toArray(new Object[0][]));
            keepCodes.add(oids);
            keepNames.add(names);
        }

        /** The dump's "results": each execution's columns and rows as delivered. */
        Reply.Results results() {
            return w -> Dump.results(w, keepNames, keepCodes, keep);
        }
    }

    /** A boxed value's contribution to the fold, as Values.fold reads it unboxed. */
    static int contribution(Object v, int kind) {
        if (v instanceof Boolean)
            return kind == Fold.BOOL && (Boolean) v ? 1 : 0;
        if (v instanceof Short || v instanceof Integer || v instanceof Long)
            return kind == Fold.INT ? (int) ((Number) v).longValue() : 0;
        if (v instanceof String)
            return kind == Fold.STR ? ((String) v).length() : 0;
        return 0;
    }

    /** Bind the runner's text values: JDBC parameter k + 1 is $(order[k]). */
    static void bind(PreparedStatement ps, int[] order, String[] args) throws SQLException {
        if (args == null)
            return;
        for (int k = 0; k < order.length; k++) {
            String v = args[order[k] - 1];
            if (v == null)
                ps.setNull(k + 1, Types.OTHER);
            else
                ps.setObject(k + 1, v, Types.OTHER);
        }
    }

    /** The refusal of an execution whose count of parameters is not the statement's (the server's 08P01). */
    static Failure countRefusal(int got, int want) {
        return Failure.query("08P01", "bind message supplies " + got + " parameters, but prepared statement "
                + "requires " + want + " (refused by the adapter: JDBC binds exactly the statement's "
                + "parameters, so pgjdbc cannot send it)");
    }

    private static Failure rollback(Connection c, Failure f) {
        try (Statement s = c.createStatement()) {
            s.execute("ROLLBACK");
            return f;
        } catch (SQLException e) {
            return new Failure(Conn.closed(c) ? "io" : "protocol", f.getMessage() + "; then ROLLBACK: " + e.getMessage());
        }
    }

    @Override
    public Block run(Plan p) {
        if (conn != null)
            return runOn(conn, p, stmts);
        // On the pool: one connection for the block, each statement prepared
        // on it (pgjdbc's cache: the named statement it parsed before).
        try (Connection c = pool.getConnection()) {
            Map<Integer, PreparedStatement> on = new HashMap<>();
            try {
                for (int id : new int[] {p.stmt, p.begin, p.commit})
                    if (id >= 0)
                        on.put(id, c.prepareStatement(sqls.get(id).jdbc));
                return runOn(c, p, on);
            } finally {
                for (PreparedStatement ps : on.values())
                    ps.close();
            }
        } catch (SQLException e) {
            return Block.failed(Conn.classify(e, null));
        }
    }

    private Block runOn(Connection c, Plan p, Map<Integer, PreparedStatement> on) {
        Exec x = new Exec(c, p, on);
        Block b = Block.timed(p.batches, x::batch);
        if (p.dump && b.fail == null)
            b.results = x.results();
        return b;
    }

    @Override
    public Load.Result load(Load.Spec s) {
        SqlText sql = sqls.get(s.stmt);
        if (sql == null || pool == null)
            return Load.Result.failed(Failure.protocol("load of a statement that was not prepared"));
        int[][] cs = {codes.get(s.stmt)};
        Load.Result r = Load.run(s, (i, f, fold) -> {
            Connection c = null;
            int pid = 0;
            try {
                c = pool.getConnection();
                pid = pid(c); // for a message: once the connection broke, HikariCP's proxy cannot say
                try (PreparedStatement ps = c.prepareStatement(sql.jdbc)) {
                    bind(ps, sql.order, s.args(i));
                    int h = Fold.OFFSET;
                    if (!ps.execute()) {
                        f.start(0);
                    } else {
                        try (ResultSet rs = ps.getResultSet()) {
                            int[] codes = cs[0];
                            if (codes == null)
                                codes = cs[0] = Values.codes(rs.getMetaData());
                            f.start(codes.length);
                            while (rs.next()) {
                                f.row();
                                for (int j = 0; j < codes.length; j++)
                                    Values.fold(rs, j, codes[j], f);
                            }
                        }
                    }
                    fold[0] = f.finish(h);
                    return f.nrows;
                }
            } catch (SQLException e) {
                Failure fl = Conn.classify(e, c);
                if ("io".equals(fl.kind))
                    fl = new Failure("io", "pool connection to server process " + (pid > 0 ? pid : "unknown")
                            + ": " + fl.getMessage());
                throw fl;
            } finally {
                if (c != null)
                    try {
                        c.close(); // back to the pool
                    } catch (SQLException e) {
                        // the pool retires it
                    }
            }
        });
        if (r.fail == null && s.badAt >= 0 && r.done == s.limit)
            r.fail = countRefusal(s.args == null ? 0 : s.args[(int) s.badAt].length, s.nparams);
        return r;
    }

    /** Stream.java; the idiom in PgjdbcStream. On a pool: one connection borrowed, the statement prepared on it. */
    @Override
    public Stream.Result stream(Stream.Spec s) {
        SqlText sql = sqls.get(s.stmt);
        if (sql == null)
            return Stream.Result.failed(Failure.protocol("stream of a statement that was not prepared"), 0);
        if (s.badCount())
            return Stream.Result.failed(countRefusal(s.given(), s.nparams), 0);
        if (conn != null)
            return PgjdbcStream.run(conn, stmts.get(s.stmt), sql, codes, s);
        try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement(sql.jdbc)) {
            return PgjdbcStream.run(c, ps, sql, codes, s);
        } catch (SQLException e) {
            return Stream.Result.failed(Conn.classify(e, null), 0);
        }
    }

    @Override
    public void close() {
        for (PreparedStatement ps : stmts.values())
            try {
                ps.close();
            } catch (SQLException e) {
                // closing anyway
            }
        stmts.clear();
        if (conn != null)
            try {
                conn.close();
            } catch (SQLException e) {
                // the connection is gone either way
            }
        conn = null;
        if (hikari != null)
            hikari.close();
        hikari = null;
        pool = null;
    }
}
