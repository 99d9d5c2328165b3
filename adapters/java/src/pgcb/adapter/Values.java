package pgcb.adapter;

import java.lang.reflect.Method;
import java.sql.Array;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * Every value of a pgjdbc ResultSet converted into the Java value a JDBC
 * user's row mapper asks pgjdbc for, by the column's type: getBoolean,
 * getShort, getInt, getLong (int8, oid), getFloat, getDouble (with
 * wasNull() for the primitives), getBigDecimal (numeric), getString (text,
 * varchar, bpchar, name, "char", json, jsonb -- pgjdbc keeps json as the
 * server's text -- and every type not named here), getBytes (bytea),
 * getObject(i, UUID.class), the JDBC 4.2 java.time classes through
 * getObject(i, LocalDate / LocalTime / LocalDateTime / OffsetDateTime
 * .class) for date, time, timestamp and timestamptz, getObject (a
 * PGInterval) for interval, getArray(i).getArray() (Integer[], Long[],
 * String[], Double[] ...) for an array. The code of each column is chosen
 * once per statement from its type OID (the RowDescription's, as pgjdbc
 * holds it).
 *
 * {@link #fold} reads one value without boxing and folds it; {@link #get}
 * returns the same conversion boxed, for a dump (Dump encodes it).
 */
final class Values {
    static final int BOOL = 1, INT2 = 2, INT4 = 3, INT8 = 4, FLOAT4 = 5, FLOAT8 = 6, NUMERIC = 7, TEXT = 8,
            BYTEA = 9, UUIDV = 10, DATE = 11, TIME = 12, TIMESTAMP = 13, TIMESTAMPTZ = 14, INTERVAL = 15,
            ARRAY = 16;

    private Values() {}

    /** The code of a column of type oid (sqlType: JDBC's, for arrays). */
    static int code(int oid, int sqlType) {
        switch (oid) {
        case 16: return BOOL;
        case 21: return INT2;
        case 23: return INT4;
        case 20: case 26: return INT8; // oid: unsigned 32-bit, a long
        case 700: return FLOAT4;
        case 701: return FLOAT8;
        case 1700: return NUMERIC;
        case 17: return BYTEA;
        case 2950: return UUIDV;
        case 1082: return DATE;
        case 1083: return TIME;
        case 1114: return TIMESTAMP;
        case 1184: return TIMESTAMPTZ;
        case 1186: return INTERVAL;
        default: return sqlType == Types.ARRAY ? ARRAY : TEXT;
        }
    }

    /** pgjdbc's PgResultSetMetaData.getField(int): its Field, whose getOID() is the column's type. */
    private static final Method GET_FIELD;

    static {
        Method m = null;
        try {
            m = Class.forName("org.postgresql.jdbc.PgResultSetMetaData").getDeclaredMethod("getField", int.class);
            m.setAccessible(true);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            m = null;
        }
        GET_FIELD = m;
    }

    /**
     * The type OID of column c (1-based) as pgjdbc holds it (the
     * RowDescription's). ResultSetMetaData has no OID, and
     * getColumnTypeName() asks the server for the columns of a table (to
     * say serial for a default from a sequence): pgjdbc's own Field, read
     * through its metadata's getField, asks nothing.
     */
    static int oid(ResultSetMetaData md, int c) throws SQLException {
        if (GET_FIELD == null)
            throw new SQLException("pgjdbc's PgResultSetMetaData.getField(int) is not there");
        try {
            Object f = GET_FIELD.invoke(md.unwrap(Class.forName("org.postgresql.jdbc.PgResultSetMetaData")), c);
            return ((org.postgresql.core.Field) f).getOID();
        } catch (ReflectiveOperationException e) {
            throw new SQLException("pgjdbc's column type: " + Failure.describe(e), e);
        }
    }

    /** The codes of a result's columns. */
    static int[] codes(ResultSetMetaData md) throws SQLException {
        int[] codes = new int[md.getColumnCount()];
        for (int j = 0; j < codes.length; j++)
            codes[j] = code(oid(md, j + 1), md.getColumnType(j + 1));
        return codes;
    }

    /** Read column j (0-based) of the current row as its code says, and fold it. */
    static void fold(ResultSet rs, int j, int code, Fold f) throws SQLException {
        int c = j + 1, k = f.kind(j);
        switch (code) {
        case BOOL: {
            boolean v = rs.getBoolean(c);
            if (rs.wasNull())
                f.nul(j);
            else
                f.add(j, k == Fold.BOOL && v ? 1 : 0);
            return;
        }
        case INT2: {
            short v = rs.getShort(c);
            if (rs.wasNull())
                f.nul(j);
            else
                f.add(j, k == Fold.INT ? v : 0);
            return;
        }
        case INT4: {
            int v = rs.getInt(c);
            if (rs.wasNull())
                f.nul(j);
            else
                f.add(j, k == Fold.INT ? v : 0);
            return;
        }
        case INT8: {
            long v = rs.getLong(c);
            if (rs.wasNull())
                f.nul(j);
            else
                f.add(j, k == Fold.INT ? (int) v : 0);
            return;
        }
        case FLOAT4: {
            rs.getFloat(c);
            if (rs.wasNull())
                f.nul(j);
            else
                f.add(j, 0);
            return;
        }
        case FLOAT8: {
            rs.getDouble(c);
            if (rs.wasNull())
                f.nul(j);
            else
                f.add(j, 0);
            return;
        }
        case TEXT: {
            String s = rs.getString(c);
            if (s == null)
                f.nul(j);
            else
                f.add(j, k == Fold.STR ? s.length() : 0);
            return;
        }
        default: {
            Object o = get(rs, j, code);
            if (o == null)
                f.nul(j);
            else
                f.add(j, 0);
        }
        }
    }

    /** Column j (0-based) of the current row, converted as its code says, boxed (null: SQL NULL). */
    static Object get(ResultSet rs, int j, int code) throws SQLException {
        int c = j + 1;
        Object v;
        switch (code) {
        case BOOL: v = rs.getBoolean(c); break;
        case INT2: v = rs.getShort(c); break;
        case INT4: v = rs.getInt(c); break;
        case INT8: v = rs.getLong(c); break;
        case FLOAT4: v = rs.getFloat(c); break;
        case FLOAT8: v = rs.getDouble(c); break;
        case NUMERIC: return rs.getBigDecimal(c);
        case TEXT: return rs.getString(c);
        case BYTEA: return rs.getBytes(c);
        case UUIDV: return rs.getObject(c, UUID.class);
        case DATE: return rs.getObject(c, LocalDate.class);
        case TIME: return rs.getObject(c, LocalTime.class);
        case TIMESTAMP: return rs.getObject(c, LocalDateTime.class);
        case TIMESTAMPTZ: return rs.getObject(c, OffsetDateTime.class);
        case INTERVAL: return rs.getObject(c);
        case ARRAY: {
            Array a = rs.getArray(c);
            if (a == null)
                return null;
            try {
                return a.getArray();
            } finally {
                a.free();
            }
        }
        default: return rs.getString(c);
        }
        return rs.wasNull() ? null : v;
    }
}
