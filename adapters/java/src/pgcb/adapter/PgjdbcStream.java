package pgcb.adapter;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;

/**
 * The pgjdbc client's stream request (Stream.java), on one Connection and
 * the statement's PreparedStatement:
 *
 *   buffered  ps.setFetchSize(0) (pgjdbc's default) and ps.executeQuery()
 *             under the connection's autocommit: pgjdbc reads every row of
 *             the result into the ResultSet's row list before executeQuery
 *             returns; rs.next() walks it.
 *   streamed  pgjdbc's documented idiom: conn.setAutoCommit(false),
 *             ps.setFetchSize(fetch), ps.executeQuery() (pgjdbc sends BEGIN
 *             with it and Executes a named portal fetch rows at a time: a
 *             fetch size counts only outside autocommit), rs.next() per row
 *             (past the rows it holds, PgResultSet.next() fetches the next
 *             fetch rows in place of them), then conn.commit(); on failure
 *             the ResultSet (its portal) closed and conn.rollback().
 *             Autocommit and the fetch size are put back as they were.
 *
 * Each value is read with the getter the run op uses (Values.fold), so a
 * column's Java type, and its kind, follow from its type's code: Boolean
 * (bool), Short, Integer, Long (int8, oid) (int), String (text and every
 * type pgjdbc gives as getString) (str), anything else (any). Parameters
 * are bound as the run op binds them (PgjdbcClient.bind), inside the timing:
 * setObject is the execution's own work. The end is when rs.next() said no
 * more rows; the commit follows it, untimed.
 */
final class PgjdbcStream {
    private PgjdbcStream() {}

    /** The kind of a column whose values Values.fold reads with code's getter. */
    static int kind(int code) {
        switch (code) {
        case Values.BOOL: return Fold.BOOL;
        case Values.INT2: case Values.INT4: case Values.INT8: return Fold.INT;
        case Values.TEXT: return Fold.STR;
        default: return Fold.ANY;
        }
    }

    private static int[] kinds(int[] codes) {
        int[] k = new int[codes.length];
        for (int j = 0; j < k.length; j++)
            k[j] = kind(codes[j]);
        return k;
    }

    /** One stream of statement s.stmt: ps on c (its SQL sql); codes: per statement, its columns' Values codes. */
    static Stream.Result run(Connection c, PreparedStatement ps, SqlText sql, Map<Integer, int[]> codes,
            Stream.Spec s) {
        Stream.Result r = new Stream.Result();
        int[] cs = codes.get(s.stmt);
        Fold f = cs == null ? null : new Fold(kinds(cs), cs.length);
        boolean auto = true;
        try {
            if (s.streamed) {
                auto = c.getAutoCommit();
                c.setAutoCommit(false);
                ps.setFetchSize(s.fetch);
            } else {
                ps.setFetchSize(0);
            }
            long cpu0 = Block.cpuNs();
            long t0 = System.nanoTime(), first = 0;
            PgjdbcClient.bind(ps, sql.order, s.args);
            try (ResultSet rs = ps.executeQuery()) {
                if (cs == null) { // the statement's first result: its columns' codes, once
                    cs = Values.codes(rs.getMetaData());
                    codes.put(s.stmt, cs);
                    f = new Fold(kinds(cs), cs.length);
                }
                f.start(cs.length);
                if (rs.next()) {
                    row(rs, cs, f);
                    first = System.nanoTime();
                    while (rs.next())
                        row(rs, cs, f);
                }
                long end = System.nanoTime();
                r.cpuNs = Block.cpuNs() - cpu0;
                r.firstNs = (first == 0 ? end : first) - t0;
                r.totalNs = end - t0;
            }
            if (s.streamed)
                c.commit();
            r.rows = f.nrows;
            r.fold = f;
            r.kinds = kinds(cs);
            // One line of at most 159 bytes (the bridge's PGCB_IDIOM_LEN).
            r.idiom = s.streamed
                    ? "PreparedStatement.setFetchSize(" + s.fetch + "), executeQuery() with autocommit off, "
                            + "ResultSet.next(): " + s.fetch + " rows per fetch"
                    : "PreparedStatement.executeQuery(), fetch size 0 (the whole result in memory), "
                            + "ResultSet.next()";
            return r;
        } catch (SQLException e) {
            Failure fl = Conn.classify(e, c);
            if (s.streamed && !"io".equals(fl.kind))
                fl = rollback(c, fl);
            return Stream.Result.failed(fl, f == null ? 0 : f.nrows);
        } finally {
            restore(c, ps, s.streamed && auto);
        }
    }

    /** Fold the current row. */
    private static void row(ResultSet rs, int[] cs, Fold f) throws SQLException {
        f.row();
        for (int j = 0; j < cs.length; j++)
            Values.fold(rs, j, cs[j], f);
    }

    /** The streamed idiom's transaction rolled back (its portal with it): the connection works again. */
    private static Failure rollback(Connection c, Failure f) {
        try {
            c.rollback();
            return f;
        } catch (SQLException e) {
            return new Failure(Conn.closed(c) ? "io" : "protocol", f.getMessage() + "; then rollback(): "
                    + e.getMessage());
        }
    }

    /** The fetch size back to 0, autocommit back on when it was (nothing to do on a broken connection). */
    private static void restore(Connection c, PreparedStatement ps, boolean autoCommit) {
        if (Conn.closed(c))
            return;
        try {
            ps.setFetchSize(0);
            if (autoCommit)
                c.setAutoCommit(true);
        } catch (SQLException e) {
            // the request's reply already says what failed
        }
    }
}
