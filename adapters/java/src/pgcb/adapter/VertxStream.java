package pgcb.adapter;

import java.util.concurrent.CountDownLatch;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.sqlclient.PreparedStatement;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowIterator;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.RowStream;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Transaction;
import io.vertx.sqlclient.Tuple;

/**
 * The vertx client's stream request (Stream.java), run on the event loop as
 * the client's run and load are: the measuring thread hands it over
 * (Context.runOnContext) and waits on a latch that the last callback counts
 * down; the event loop never blocks.
 *
 *   buffered  conn.preparedQuery(sql).execute(tuple): vertx-pg-client
 *             collects every row into a RowSet before the future completes;
 *             its rows are then folded.
 *   streamed  vertx's documented idiom: conn.prepare(sql) (once per
 *             statement on the one connection, kept for the next streams;
 *             on a pool's connection prepared and closed each time), then
 *             conn.begin() (streams need a transaction), both before t0;
 *             then preparedStatement.createStream(fetch, tuple), a RowStream
 *             (RowStreamImpl: a Cursor reading fetch rows per round trip,
 *             the next read issued once the last chunk's rows were emitted)
 *             with exceptionHandler, endHandler and handler set, each row
 *             folded in the handler and dropped. The end is the endHandler;
 *             the commit follows it, untimed. On failure: the stream closed
 *             and the transaction rolled back (waited for, unless the
 *             connection broke), so that the connection works again.
 *
 * A column's kind comes from the Java class of the first non-null value
 * row.getValue(j) gives (Boolean: bool; Short, Integer, Long: int; String:
 * str; anything else: any), kept per column; each later value is cast to
 * that class for its contribution (a final class: no dynamic dispatch).
 */
final class VertxStream {
    /** A column's values, by the class of its first non-null one (UNSEEN: none yet). */
    static final int UNSEEN = -1, ANY = 0, BOOL = 1, I2 = 2, I4 = 3, I8 = 4, STR = 5;

    static int code(Object v) {
        if (v instanceof Integer)
            return I4;
        if (v instanceof Long)
            return I8;
        if (v instanceof String)
            return STR;
        if (v instanceof Boolean)
            return BOOL;
        if (v instanceof Short)
            return I2;
        return ANY;
    }

    /** Non-null v's contribution, v of the class code says. */
    static int contribution(Object v, int code) {
        switch (code) {
        case I4: return (Integer) v;
        case I8: return (int) (long) (Long) v;
        case STR: return ((String) v).length();
        case BOOL: return (Boolean) v ? 1 : 0;
        case I2: return (Short) v;
        default: return 0;
        }
    }

    static int kind(int code) {
        switch (code) {
        case BOOL: return Fold.BOOL;
        case I2: case I4: case I8: return Fold.INT;
        case STR: return Fold.STR;
        default: return Fold.ANY;
        }
    }

    private final Context ctx;
    private final SqlConnection c;
    private final String sql;
    private final Tuple args;
    private final Stream.Spec s;
    private final CountDownLatch done = new CountDownLatch(1);
    private final Stream.Result r = new Stream.Result();
    private final Fold f = new Fold(new int[0], 0);
    private int[] codes = new int[0];
    private int ncols = -1;
    private long cpu0, t0, first;
    private PreparedStatement ps;
    private Transaction tx;
    private RowStream<Row> stream;

    /** ps: the statement prepared on c by an earlier stream (null: prepare it). */
    VertxStream(Context ctx, SqlConnection c, String sql, Tuple args, Stream.Spec s, PreparedStatement ps) {
        this.ctx = ctx;
        this.c = c;
        this.sql = sql;
        this.args = args;
        this.s = s;
        this.ps = ps;
    }

    /** The streamed idiom's prepared statement (null: none was prepared). */
    PreparedStatement prepared() {
        return ps;
    }

    /** Run it on the event loop; the calling (measuring) thread waits for the outcome. */
    Stream.Result run() throws InterruptedException {
        ctx.runOnContext(v -> start());
        done.await();
        return r;
    }

    private void start() {
        if (!s.streamed) {
            buffered();
            return;
        }
        Future<PreparedStatement> p = ps != null ? Future.succeededFuture(ps) : c.prepare(sql);
        p.compose(x -> {
            ps = x;
            return c.begin();
        }).onComplete(ar -> {
            if (ar.failed()) {
                r.fail = VertxClient.classify(ar.cause());
                done.countDown();
                return;
            }
            tx = ar.result();
            streamed();
        });
    }

    private void buffered() {
        cpu0 = Block.cpuNs();
        t0 = System.nanoTime();
        c.preparedQuery(sql).execute(args).onComplete(ar -> {
            try {
                if (ar.failed()) {
                    r.fail = VertxClient.classify(ar.cause());
                    return;
                }
                RowSet<Row> rs = ar.result();
                columns(rs.columnDescriptors() == null ? 0 : rs.columnDescriptors().size());
                RowIterator<Row> it = rs.iterator();
                if (it.hasNext()) {
                    fold(it.next());
                    first = System.nanoTime();
                    while (it.hasNext())
                        fold(it.next());
                }
                ended(System.nanoTime());
                r.idiom = "PgConnection.preparedQuery(sql).execute(tuple): a RowSet (the whole result in memory)";
            } catch (RuntimeException e) {
                e.printStackTrace();
                r.fail = Failure.protocol("internal error: " + Failure.describe(e));
            } finally {
                r.rows = f.nrows;
                done.countDown();
            }
        });
    }

    private void streamed() {
        cpu0 = Block.cpuNs();
        t0 = System.nanoTime();
        stream = ps.createStream(s.fetch, args);
        stream.exceptionHandler(this::failed);
        stream.endHandler(v -> {
            ended(System.nanoTime());
            r.rows = f.nrows;
            // One line of at most 159 bytes (the bridge's PGCB_IDIOM_LEN).
            r.idiom = "PreparedStatement.createStream(" + s.fetch + ", tuple) in a transaction (begin, commit): "
                    + "a RowStream, " + s.fetch + " rows per fetch";
            tx.commit().onComplete(ar -> {
                if (ar.failed())
                    r.fail = VertxClient.classify(ar.cause());
                done.countDown();
            });
        });
        stream.handler(this::row); // issues the first read
    }

    /** The stream's row handler: fold the row; its first row's time. */
    private void row(Row row) {
        try {
            if (ncols < 0)
                columns(row.size());
            fold(row);
            if (f.nrows == 1)
                first = System.nanoTime();
        } catch (RuntimeException e) {
            e.printStackTrace();
            stream.handler(null); // no more rows: the cursor closed
            failed(Failure.protocol("internal error: " + Failure.describe(e)));
        }
    }

    private void columns(int n) {
        ncols = n;
        f.start(n);
        codes = new int[n];
        java.util.Arrays.fill(codes, UNSEEN);
    }

    private void fold(Row row) {
        Fold f = this.f;
        int[] codes = this.codes;
        f.row();
        for (int j = 0; j < ncols; j++) {
            Object v = row.getValue(j);
            if (v == null) {
                f.nul(j);
            } else {
                int k = codes[j];
                if (k == UNSEEN)
                    k = codes[j] = code(v);
                f.add(j, contribution(v, k));
            }
        }
    }

    /** The result is complete at `end`: the times, the CPU time, the columns. */
    private void ended(long end) {
        r.cpuNs = Block.cpuNs() - cpu0;
        r.firstNs = (first == 0 ? end : first) - t0;
        r.totalNs = end - t0;
        r.fold = f;
        r.kinds = new int[codes.length];
        for (int j = 0; j < codes.length; j++)
            r.kinds[j] = kind(codes[j]);
    }

    /** The stream failed (the server's error, a broken connection): close it, roll back, reply. */
    private void failed(Throwable e) {
        Failure fl = e instanceof Failure ? (Failure) e : VertxClient.classify(e);
        r.fail = fl;
        r.rows = f.nrows;
        stream.close();
        if ("io".equals(fl.kind)) { // nothing to roll back on a broken connection
            tx.rollback();
            done.countDown();
            return;
        }
        tx.rollback().onComplete(ar -> {
            if (ar.failed())
                r.fail = new Failure("io".equals(VertxClient.classify(ar.cause()).kind) ? "io" : "protocol",
                        fl.getMessage() + "; then rollback(): " + Failure.describe(ar.cause()));
            done.countDown();
        });
    }
}
