package pgcb.adapter;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.ClientSSLOptions;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgConnection;
import io.vertx.pgclient.PgException;
import io.vertx.pgclient.SslMode;
import io.vertx.pgclient.data.Interval;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import io.vertx.sqlclient.data.Numeric;
import io.vertx.sqlclient.desc.ColumnDescriptor;

import org.postgresql.util.PGInterval;

/**
 * The "vertx" client: vertx-pg-client 5 (Maven Central's, adapters/java/pom.xml),
 * the reactive PostgreSQL client of Vert.x (Quarkus's reactive SQL client).
 *
 * Vert.x runs its own event loop: one (VertxOptions.setEventLoopPoolSize(1),
 * worker and internal blocking pools of 1, the blocked-thread checker off),
 * on Netty's epoll transport (setPreferNativeTransport: netty-transport-
 * native-epoll, which connects to a Unix-domain socket: a host that starts
 * with / is the socket directory, vertx-pg-client's own rule). Every thread
 * of the adapter, the event loop's too, is pinned by the bridge to the
 * measuring CPU.
 *
 * One PgConnection (PgConnection.connect), or with "pool": P a vert.x Pool
 * (PgBuilder.pool(), PoolOptions.setMaxSize(P)) whose P connections are all
 * opened at connect. PgConnectOptions: setCachePreparedStatements(true) (a
 * named statement per SQL and connection, parsed and described at its first
 * execution, the runner's priming one; vert.x's default is false: Parse and
 * Describe with every execution) and setPipeliningLimit (option
 * pipelining_limit, default 1024: the runner's depths up to it in flight on
 * one connection at once; vert.x's default is 256).
 *
 * An execution is conn.preparedQuery(sql).execute(tuple): the statement's
 * $n placeholders as the runner wrote them (vertx-pg-client's own syntax),
 * a Tuple of typed values. vertx-pg-client checks each value against the
 * parameter type the server described and refuses a String for an int4, as
 * an application passes its Integer: the adapter learns the statement's
 * parameter types once at prepare (PREPARE, pg_prepared_statements'
 * parameter_types, DEALLOCATE: before anything is timed) and converts the
 * bridge's text values into the Java types vertx-pg-client encodes
 * (Integer, Long, String ...), every Tuple built before the block's first
 * clock read. Results are binary, always (vertx-pg-client asks for binary
 * for every type it knows; hello says so whatever result_format asks).
 * Every row's values are read with row.getValue(j) (vertx-pg-client decoded
 * them into Java objects: Integer, Long, String, Numeric, Buffer,
 * LocalDateTime ...) and folded as pgjdbc's.
 *
 * A block runs on the event loop, as Node.js's and asyncio's clients run
 * theirs (a block is many batches): the measuring thread hands it over and
 * waits; on the event loop each batch issues [begin,] its depth executions
 * [, commit] at once (pipelined on the one connection), folds each
 * execution as it completes (in order), and when the last completed reads
 * the clock and issues the next. A
 * failed batch waits for every execution it issued, then rolls back (with
 * begin), and ends the block. A load runs on the event loop too
 * (AsyncLoad): `concurrency` asynchronous workers sending their queries
 * through the Pool. The stream request: VertxStream.java.
 */
final class VertxClient implements Client {
    private final int pipeliningLimit;
    private final String version;
    private Vertx vertx;
    private Context ctx;
    private SqlConnection conn;
    private Pool pool;

    /** A statement: its SQL and its parameters' type OIDs (from the server). */
    private static final class Prep {
        final String sql;
        final int[] types;

        Prep(String sql, int[] types) {
            this.sql = sql;
            this.types = types;
        }
    }

    private final Map<Integer, Prep> stmts = new HashMap<>();
    /** The streamed idiom's prepared statements on the one connection, by statement number (VertxStream). */
    private final Map<Integer, io.vertx.sqlclient.PreparedStatement> streamed = new HashMap<>();

    VertxClient(Map<String, String> opts) {
        Client.checkOptions("vertx", opts, "pipelining_limit", "jit_warmup_ms");
        pipeliningLimit = (int) Client.count("vertx", "pipelining_limit", opts.getOrDefault("pipelining_limit", "1024"),
                1_000_000);
        if (pipeliningLimit < 1)
            throw Failure.config("vertx: pipelining_limit = 0: want at least 1");
        version = versionOrFail();
    }

    private static String versionOrFail() {
        try {
            Class<?> k = Class.forName("io.vertx.pgclient.PgConnection");
            Package p = k.getPackage();
            String v = p != null ? p.getImplementationVersion() : null;
            if (v == null) {
                java.net.URL at = k.getProtectionDomain().getCodeSource().getLocation();
                String f = new java.io.File(at.toURI()).getName(); // vertx-pg-client-5.0.12.jar
                v = f.replaceFirst("^vertx-pg-client-", "").replaceFirst("\\.jar$", "");
            }
            return v;
        } catch (Exception | LinkageError e) {
            throw Failure.config("client vertx: cannot load vertx-pg-client (" + Failure.describe(e) + "); run "
                    + "adapters/java/install.sh (Maven Central's jars into build/adapters/java/lib)");
        }
    }

    @Override
    public Info info() {
        Info i = new Info();
        i.client = "vertx";
        i.clientVersion = version;
        i.links = "vertx-pg-client " + version + " (binary, pipelining " + pipeliningLimit + ", one event loop, "
                + "epoll); " + Jvm.summary();
        i.pipeline = true;
        i.noIo = false;
        i.load = true;
        i.stream = true;
        i.wire = new String[] {"binary", "once", "per_query", "named"};
        return i;
    }

    /** Block for f's outcome (the measuring thread, never the event loop). */
    private static <T> T await(Future<T> f) throws Throwable {
        CompletableFuture<T> c = f.toCompletionStage().toCompletableFuture();
        try {
            return c.get();
        } catch (ExecutionException e) {
            throw e.getCause() != null ? e.getCause() : e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw e;
        }
    }

    private static String str(JsonObject o, String k) {
        JsonElement e = o.get(k);
        return e != null && e.isJsonPrimitive() ? e.getAsString() : null;
    }

    @Override
    public void connect(JsonObject c, int poolSize) {
        String host = str(c, "host"), port = str(c, "port"), db = str(c, "dbname");
        if (host == null || host.isEmpty())
            host = "/var/run/postgresql";
        if (port == null || port.isEmpty())
            port = "5432";
        if (!port.matches("[0-9]{1,5}"))
            throw new Failure("connect", "port \"" + port + "\" is not a port number");
        String where = host.startsWith("/") ? host + "/.s.PGSQL." + port : host + ":" + port;
        PgConnectOptions o = new PgConnectOptions().setHost(host).setPort(Integer.parseInt(port))
                .setCachePreparedStatements(true).setPipeliningLimit(pipeliningLimit);
        if (db != null)
            o.setDatabase(db);
        if (str(c, "user") != null)
            o.setUser(str(c, "user"));
        String pw = str(c, "password");
        if (pw != null) {
            Failure.setSecret(pw);
            o.setPassword(pw);
        }
        if (str(c, "application_name") != null)
            o.addProperty("application_name", str(c, "application_name"));
        if (str(c, "options") != null)
            o.addProperty("options", str(c, "options"));
        String ssl = str(c, "sslmode");
        if (ssl != null && !ssl.equals("disable"))
            o.setSslMode(SslMode.REQUIRE).setSslOptions(new ClientSSLOptions().setTrustAll(true));
        vertx = Vertx.builder().with(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(1)
                .setInternalBlockingPoolSize(1).setPreferNativeTransport(true)
                .setBlockedThreadCheckInterval(1_000_000).setBlockedThreadCheckIntervalUnit(TimeUnit.HOURS))
                .build();
        if (o.isUsingDomainSocket() && !vertx.isNativeTransportEnabled())
            throw new Failure("connect", "client vertx: a Unix-domain socket (" + where + ") needs Netty's epoll "
                    + "transport, which did not load (" + Failure.describe(vertx.unavailableNativeTransportCause())
                    + ")");
        ctx = vertx.getOrCreateContext();
        try {
            if (poolSize == 0) {
                conn = await(PgConnection.connect(vertx, o));
                return;
            }
            pool = io.vertx.pgclient.PgBuilder.pool().with(new PoolOptions().setMaxSize(poolSize)).connectingTo(o)
                    .using(vertx).build();
            // Every connection opened now: all P borrowed at once, then given back.
            List<Future<SqlConnection>> fs = new ArrayList<>();
            for (int k = 0; k < poolSize; k++)
                fs.add(pool.getConnection());
            List<SqlConnection> got = new ArrayList<>();
            Throwable bad = null;
            for (Future<SqlConnection> f : fs)
                try {
                    got.add(await(f));
                } catch (Throwable e) {
                    if (bad == null)
                        bad = e;
                }
            for (SqlConnection s : got)
                await(s.close());
            if (bad != null)
                throw bad;
        } catch (Failure f) {
            throw f;
        } catch (Throwable e) {
            throw new Failure("connect", "vertx: " + Failure.describe(e) + " (" + where + ")");
        }
    }

    /** A failure of vertx-pg-client's: the server's error, a broken connection, or its own refusal. */
    static Failure classify(Throwable e) {
        if (e instanceof PgException) {
            PgException p = (PgException) e;
            String state = p.getSqlState();
            String msg = p.getErrorMessage() != null ? p.getErrorMessage() : p.getMessage();
            if (state != null && (Conn.gone(state) || state.startsWith("08")))
                return new Failure("io", state + ": " + msg);
            return Failure.query(state, msg);
        }
        String n = e.getClass().getName();
        String m = String.valueOf(e.getMessage());
        if (n.contains("Closed") || m.contains("closed") || e instanceof java.io.IOException)
            return new Failure("io", "vertx: " + Failure.describe(e));
        return Failure.protocol("vertx: " + Failure.describe(e));
    }

    @Override
    public Stmt prepare(int id, String sql) {
        int n = SqlText.of(sql).nparams;
        int[] types = new int[0];
        if (n > 0) {
            // The parameters' types, as the server infers them (PREPARE takes
            // SELECT, INSERT, UPDATE, DELETE, MERGE and VALUES: the ones with
            // parameters).
            SqlConnection c = null;
            try {
                c = conn != null ? conn : await(pool.getConnection());
                await(c.query("PREPARE pgcb_vertx_types AS " + sql).execute());
                try {
                    RowSet<Row> rs = await(c.query("SELECT array(SELECT t::oid::int FROM unnest(parameter_types) t) "
                            + "FROM pg_prepared_statements WHERE name = 'pgcb_vertx_types'").execute());
                    Integer[] ts = rs.iterator().next().getArrayOfIntegers(0);
                    types = new int[ts.length];
                    for (int k = 0; k < ts.length; k++)
                        types[k] = ts[k];
                } finally {
                    await(c.query("DEALLOCATE pgcb_vertx_types").execute());
                }
            } catch (Failure f) {
                throw f;
            } catch (Throwable e) {
                throw classify(e);
            } finally {
                if (c != null && c != conn)
                    c.close();
            }
        }
        stmts.put(id, new Prep(sql, types));
        return new Stmt(0, n);
    }

    /** The bridge's text value for a parameter of type oid, as the Java value vertx-pg-client encodes. */
    static Object value(String v, int oid) {
        if (v == null)
            return null;
        try {
            switch (oid) {
            case 16: {
                String b = v.trim().toLowerCase(java.util.Locale.ROOT);
                if (b.equals("t") || b.equals("true") || b.equals("y") || b.equals("yes") || b.equals("on")
                        || b.equals("1"))
                    return Boolean.TRUE;
                if (b.equals("f") || b.equals("false") || b.equals("n") || b.equals("no") || b.equals("off")
                        || b.equals("0"))
                    return Boolean.FALSE;
                throw new IllegalArgumentException();
            }
            case 21: return Short.valueOf(v.trim());
            case 23: return Integer.valueOf(v.trim());
            case 20: case 26: return Long.valueOf(v.trim());
            case 700: return Float.valueOf(v.trim());
            case 701: return Double.valueOf(v.trim());
            case 1700: return Numeric.parse(v.trim());
            case 2950: return UUID.fromString(v.trim());
            case 1082: return LocalDate.parse(v.trim());
            case 1083: return LocalTime.parse(v.trim());
            case 1114: return LocalDateTime.parse(v.trim().replace(' ', 'T'));
            case 1184: return OffsetDateTime.parse(v.trim().replace(' ', 'T'));
            case 17:
                if (v.startsWith("\\x"))
                    return Buffer.buffer(java.util.HexFormat.of().parseHex(v.substring(2)));
                return Buffer.buffer(v.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            case 114: case 3802: return io.vertx.core.json.Json.decodeValue(v);
            default: return v;
            }
        } catch (RuntimeException e) {
            throw Failure.query("22P02", "invalid input syntax for the parameter's type " + oid + ": \"" + v
                    + "\" (converted by the adapter into the Java type vertx-pg-client encodes)");
        }
    }

    private static Tuple tuple(String[] args, int[] types) {
        if (args == null)
            return Tuple.tuple();
        Object[] vs = new Object[args.length];
        for (int k = 0; k < args.length; k++)
            vs[k] = value(args[k], k < types.length ? types[k] : 0);
        return Tuple.wrap(vs);
    }

    static Failure countRefusal(int got, int want) {
        return Failure.query("08P01", "bind message supplies " + got + " parameters, but prepared statement "
                + "requires " + want + " (refused by the adapter: vertx-pg-client checks a Tuple's size against "
                + "the statement's parameters, so it cannot send it)");
    }

    /** One block on the event loop (see the class's comment). */
    private final class BlockRun {
        final SqlConnection c;
        final Plan p;
        final Prep st, begin, commit;
        final Tuple[] tuples;
        final Block b;
        final Fold f;
        final CountDownLatch done = new CountDownLatch(1);
        /** The batch's results not folded yet (by execution), and what failed first. */
        final Object[] res;
        int pending;
        Throwable err;
        int i;
        /** The batch's fold so far, its rows, the next execution to fold. */
        int h, next;
        long total;
        long prev, cpu0;
        /** A dump's executions. */
        final List<Object[][]> keep;
        final List<int[]> keepOids = new ArrayList<>();
        final List<String[]> keepNames = new ArrayList<>();

        BlockRun(SqlConnection c, Plan p, Tuple[] tuples) {
            this.c = c;
            this.p = p;
            this.st = stmts.get(p.stmt);
            this.begin = p.begin >= 0 ? stmts.get(p.begin) : null;
            this.commit = p.commit >= 0 ? stmts.get(p.commit) : null;
            this.tuples = tuples;
            this.b = new Block(p.batches);
            this.f = new Fold(p.kinds, p.ncols);
            this.res = new Object[p.depth];
            this.keep = p.dump ? new ArrayList<>() : null;
        }

        void start() {
            cpu0 = Block.cpuNs();
            prev = System.nanoTime();
            issue();
        }

        /** Issue batch i, or end the block. */
        void issue() {
            if (i == p.batches || b.fail != null) {
                b.done = i;
                b.cpuNs = Block.cpuNs() - cpu0;
                done.countDown();
                return;
            }
            if (p.badAt >= 0 && p.badAt / p.depth == i) {
                String[] a = p.params == null ? new String[0] : p.params[(int) p.badAt];
                b.fail = countRefusal(a.length, p.nparams);
                issue();
                return;
            }
            err = null;
            h = Fold.OFFSET;
            total = 0;
            next = 0;
            pending = p.depth + (begin != null ? 2 : 0);
            if (begin != null)
                c.preparedQuery(begin.sql).execute().onComplete(r -> settled(-1, r.cause(), null));
            for (int k = 0; k < p.depth; k++) {
                final int kk = k;
                c.preparedQuery(st.sql).execute(tuples[i * p.depth + k])
                        .onComplete(r -> settled(kk, r.cause(), r.result()));
            }
            if (commit != null)
                c.preparedQuery(commit.sql).execute().onComplete(r -> settled(-1, r.cause(), null));
        }

        void settled(int k, Throwable e, RowSet<Row> rs) {
            if (e != null && err == null)
                err = e;
            // Each execution folded as it completes (in order: one
            // connection answers in order), its RowSet dropped then.
            if (k >= 0 && err == null) {
                res[k] = rs;
                try {
                    while (next < p.depth && res[next] != null) {
                        @SuppressWarnings("unchecked")
                        RowSet<Row> r = (RowSet<Row>) res[next];
                        res[next++] = null;
                        h = keep != null ? keepResult(r, h) : foldResult(r, h);
                        total += f.nrows;
                    }
                } catch (Failure x) {
                    err = x;
                } catch (RuntimeException x) {
                    x.printStackTrace();
                    err = Failure.protocol("internal error: " + Failure.describe(x));
                }
            }
            if (--pending > 0)
                return;
            if (err != null) {
                Failure fl = err instanceof Failure ? (Failure) err : classify(err);
                if (begin != null && !"io".equals(fl.kind)) {
                    c.query("ROLLBACK").execute().onComplete(r -> {
                        b.fail = r.failed() ? new Failure("protocol", fl.getMessage() + "; then ROLLBACK: "
                                + Failure.describe(r.cause())) : fl;
                        java.util.Arrays.fill(res, null);
                        issue();
                    });
                    return;
                }
                b.fail = fl;
                java.util.Arrays.fill(res, null);
                issue();
                return;
            }
            long now = System.nanoTime();
            b.samples[i] = Math.max(1, now - prev);
            b.rows[i] = total;
            b.folds[i] = h;
            prev = now;
            i++;
            issue();
        }

        int foldResult(RowSet<Row> rs, int h) {
            int n = rs.columnDescriptors() == null ? 0 : rs.columnDescriptors().size();
            f.start(n);
            for (Row r : rs) {
                f.row();
                for (int j = 0; j < n; j++) {
                    Object v = r.getValue(j);
                    if (v == null)
                        f.nul(j);
                    else
                        f.add(j, PgjdbcClient.contribution(v, f.kind(j)));
                }
            }
            return f.finish(h);
        }

        int keepResult(RowSet<Row> rs, int h) {
            List<ColumnDescriptor> cds = rs.columnDescriptors();
            int n = cds == null ? 0 : cds.size();
            f.start(n);
            List<Object[]> rows = new ArrayList<>();
            for (Row r : rs) {
                f.row();
                Object[] row = new Object[n];
                for (int j = 0; j < n; j++) {
                    Object v = r.getValue(j);
                    if (v == null)
                        f.nul(j);
                    else
                        f.add(j, PgjdbcClient.contribution(v, f.kind(j)));
                    row[j] = dumpable(v);
                }
                rows.add(row);
            }
            String[] names = new String[n];
            int[] oids = new int[n];
            for (int j = 0; j < n; j++) {
                names[j] = cds.get(j).name();
                oids[j] = oid(cds.get(j));
            }
            keep.add(rows.toArray(new Object[0][]));
            keepOids.add(oids);
            keepNames.add(names);
            return f.finish(h);
        }
    }

    /** vertx-pg-client's PgColumnDesc.dataType.id (no public API has a column's type OID); 0 when unknown. */
    private static int oid(ColumnDescriptor cd) {
        try {
            java.lang.reflect.Field dt = cd.getClass().getDeclaredField("dataType");
            dt.setAccessible(true);
            Object t = dt.get(cd);
            java.lang.reflect.Field id = t.getClass().getDeclaredField("id");
            id.setAccessible(true);
            return id.getInt(t);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return 0;
        }
    }

    /** A value as Dump encodes it: vert.x's own types as pgjdbc's equivalents. */
    static Object dumpable(Object v) {
        if (v instanceof Buffer)
            return ((Buffer) v).getBytes();
        if (v instanceof Numeric) {
            Numeric n = (Numeric) v;
            return n.isNaN() ? Double.NaN : n.bigDecimalValue();
        }
        if (v instanceof BigDecimal)
            return v;
        if (v instanceof Interval) {
            Interval i = (Interval) v;
            return new PGInterval(i.getYears(), i.getMonths(), i.getDays(), i.getHours(), i.getMinutes(),
                    i.getSeconds() + i.getMicroseconds() / 1e6);
        }
        // A JsonObject or JsonArray stays one: Dump writes it as "other" (its
        // encode()), which folds as kind any, as the adapter's own fold does.
        if (v instanceof Object[]) {
            Object[] a = (Object[]) v, out = new Object[a.length];
            for (int k = 0; k < a.length; k++)
                out[k] = dumpable(a[k]);
            return out;
        }
        return v;
    }

    @Override
    public Block run(Plan p) {
        Prep st = stmts.get(p.stmt);
        if (st == null)
            return Block.failed(Failure.protocol("run of a statement that was not prepared"));
        Tuple[] tuples = new Tuple[p.batches * p.depth];
        try {
            for (int i = 0; i < p.batches; i++)
                for (int k = 0; k < p.depth; k++) {
                    int e = i * p.depth + k;
                    if (p.badAt >= 0 && e >= p.badAt)
                        break;
                    tuples[e] = tuple(p.args(i, k), st.types);
                }
        } catch (Failure f) {
            return Block.failed(f);
        }
        SqlConnection c = conn;
        boolean borrowed = false;
        try {
            if (c == null) {
                c = await(pool.getConnection());
                borrowed = true;
            }
            BlockRun r = new BlockRun(c, p, tuples);
            ctx.runOnContext(v -> r.start());
            r.done.await();
            if (p.dump && r.b.fail == null)
                r.b.results = w -> Dump.results(w, r.keepNames, r.keepOids, r.keep);
            return r.b;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Block.failed(Failure.protocol("interrupted"));
        } catch (Throwable e) {
            return Block.failed(classify(e));
        } finally {
            if (borrowed)
                c.close();
        }
    }

    @Override
    public Load.Result load(Load.Spec s) {
        Prep st = stmts.get(s.stmt);
        if (st == null || pool == null)
            return Load.Result.failed(Failure.protocol("load of a statement that was not prepared"));
        Tuple[] tuples = new Tuple[(int) s.limit];
        try {
            for (int i = 0; i < tuples.length; i++)
                tuples[i] = tuple(s.args(i), st.types);
        } catch (Failure f) {
            return Load.Result.failed(f);
        }
        AsyncLoad l = new AsyncLoad(s, st.sql, tuples);
        Load.Result r = l.run();
        if (r.fail == null && s.badAt >= 0 && r.done == s.limit)
            r.fail = countRefusal(s.args == null ? 0 : s.args[(int) s.badAt].length, s.nparams);
        return r;
    }

    /**
     * Stream.java; the idioms in VertxStream. On a pool: one connection
     * borrowed, the streamed idiom's statement prepared on it and closed.
     */
    @Override
    public Stream.Result stream(Stream.Spec s) {
        Prep st = stmts.get(s.stmt);
        if (st == null)
            return Stream.Result.failed(Failure.protocol("stream of a statement that was not prepared"), 0);
        if (s.badCount())
            return Stream.Result.failed(countRefusal(s.given(), s.nparams), 0);
        Tuple t;
        try {
            t = tuple(s.args, st.types);
        } catch (Failure f) {
            return Stream.Result.failed(f, 0);
        }
        SqlConnection c = conn;
        VertxStream x = null;
        try {
            if (c == null)
                c = await(pool.getConnection());
            x = new VertxStream(ctx, c, st.sql, t, s, c == conn ? streamed.get(s.stmt) : null);
            Stream.Result r = x.run();
            if (c == conn && x.prepared() != null)
                streamed.put(s.stmt, x.prepared());
            return r;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Stream.Result.failed(Failure.protocol("interrupted"), 0);
        } catch (Throwable e) {
            return Stream.Result.failed(classify(e), 0);
        } finally {
            if (c != null && c != conn) {
                if (x != null && x.prepared() != null)
                    x.prepared().close();
                c.close();
            }
        }
    }

    /**
     * A load on the event loop (docs/bridge-protocol.md, "load"), as the
     * Node.js and asyncio clients run theirs: `concurrency` asynchronous
     * workers, each issuing its next query through the Pool
     * (pool.preparedQuery(sql).execute(tuple)) when its last one was folded;
     * closed: at once, its latency from the clock read before it is issued;
     * rate: query i due at start + i / rate (a vert.x timer, ms, wakes the
     * worker), its latency from its due time. Issuing stops as Load.java's
     * does; after the first failure no worker issues again. The measuring
     * thread waits (a 10 ms poll) and gives up on queries in flight when
     * none completed for Load.SETTLE_NS after the issuing ended.
     */
    private final class AsyncLoad {
        final Load.Spec s;
        final String sql;
        final Tuple[] tuples;
        final int workers;
        final double period;
        final Load.Result out = new Load.Result();
        final Fold[] folds;
        long start, endBy, issued, lastDone, lastDue, late, lateIndex = -1;
        int returned;
        boolean stopped, abandoned;
        Failure fail;

        AsyncLoad(Load.Spec s, String sql, Tuple[] tuples) {
            this.s = s;
            this.sql = sql;
            this.tuples = tuples;
            this.workers = (int) Math.max(1, Math.min(s.concurrency, s.limit));
            this.period = s.rate > 0 ? 1e9 / s.rate : 0;
            int n = (int) s.limit;
            out.lat = new long[n];
            out.rows = new long[n];
            out.folds = new int[n];
            folds = new Fold[workers];
            for (int w = 0; w < workers; w++)
                folds[w] = new Fold(s.kinds, s.ncols);
        }

        /** Worker w's next query (on the event loop). */
        void next(int w) {
            long i, t0 = System.nanoTime(), due = 0;
            synchronized (this) {
                i = issued;
                if (stopped || abandoned || i >= s.limit) {
                    returned++;
                    return;
                }
                if (period > 0) {
                    due = start + (long) (i * period);
                    if (due >= endBy && i >= s.minQueries) {
                        returned++;
                        return;
                    }
                    lastDue = Math.max(lastDue, due - start);
                } else if (t0 >= endBy && i >= s.minQueries) {
                    returned++;
                    return;
                }
                issued++;
            }
            if (period > 0 && t0 < due) {
                final long ii = i, dd = due;
                vertx.setTimer(Math.max(1, (due - t0 + 999_999) / 1_000_000), id -> fire(w, ii, dd, true));
                return;
            }
            fire(w, i, period > 0 ? due : t0, period > 0);
        }

        void fire(int w, long i, long t0, boolean rate) {
            if (rate) {
                long now = System.nanoTime();
                synchronized (this) {
                    if (stopped || abandoned) {
                        returned++;
                        return;
                    }
                    if (i > lateIndex) {
                        lateIndex = i;
                        late = Math.max(0, now - t0);
                    }
                }
            }
            pool.preparedQuery(sql).execute(tuples[(int) i]).onComplete(ar -> {
                if (ar.failed()) {
                    Failure fl = classify(ar.cause());
                    if ("io".equals(fl.kind))
                        fl = new Failure("io", "pool connection: " + fl.getMessage());
                    synchronized (this) {
                        if (!abandoned && fail == null)
                            fail = fl;
                        stopped = true;
                        returned++;
                    }
                    return;
                }
                Fold f = folds[w];
                RowSet<Row> rs = ar.result();
                int n = rs.columnDescriptors() == null ? 0 : rs.columnDescriptors().size();
                f.start(n);
                for (Row row : rs) {
                    f.row();
                    for (int j = 0; j < n; j++) {
                        Object v = row.getValue(j);
                        if (v == null)
                            f.nul(j);
                        else
                            f.add(j, PgjdbcClient.contribution(v, f.kind(j)));
                    }
                }
                int h = f.finish(Fold.OFFSET);
                long t1 = System.nanoTime();
                synchronized (this) {
                    if (!abandoned) {
                        int k = out.done++;
                        out.lat[k] = Math.max(1, t1 - t0);
                        out.rows[k] = f.nrows;
                        out.folds[k] = h;
                        lastDone = t1;
                    }
                }
                next(w);
            });
        }

        synchronized int progress() {
            return out.done + returned;
        }

        Load.Result run() {
            long cpu0 = Block.cpuNs();
            start = System.nanoTime();
            endBy = start + s.durationNs;
            lastDone = start;
            ctx.runOnContext(v -> {
                for (int w = 0; w < workers; w++)
                    next(w);
            });
            while (progressReturned() == 0 && (s.minQueries > 0 || System.nanoTime() < endBy))
                sleepMs(10);
            int seen = -1;
            long quietSince = System.nanoTime();
            while (progressReturned() < workers) {
                int p = progress();
                long now = System.nanoTime();
                long dueLeft;
                synchronized (this) {
                    dueLeft = lastDue - (now - start);
                }
                if (p != seen || dueLeft > 0) {
                    seen = p;
                    quietSince = now;
                } else if (now - quietSince >= Load.SETTLE_NS) {
                    synchronized (this) {
                        if (fail == null)
                            fail = new Failure("io", (workers - returned) + " of the load's queries never "
                                    + "answered: none completed for " + Load.SETTLE_NS / 1_000_000 + " ms after "
                                    + "the issuing ended (a connection of the pool broke without an error from "
                                    + "the client)");
                        abandoned = true;
                        stopped = true;
                    }
                    break;
                }
                sleepMs(10);
            }
            synchronized (this) {
                abandoned = true; // nothing is appended from here on
                out.cpu = Block.cpuNs() - cpu0;
                out.wall = (out.done == 0 ? System.nanoTime() : lastDone) - start;
                out.late = late;
                out.fail = fail;
            }
            return out;
        }

        synchronized int progressReturned() {
            return returned;
        }
    }

    private static void sleepMs(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        try {
            if (conn != null)
                await(conn.close());
            if (pool != null)
                await(pool.close());
        } catch (Throwable e) {
            // the connections are gone either way
        }
        conn = null;
        pool = null;
        if (vertx != null)
            try {
                await(vertx.close());
            } catch (Throwable e) {
                // ending anyway
            }
        vertx = null;
    }
}
