package pgcb.adapter;

import java.io.IOException;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;

import com.google.gson.stream.JsonWriter;

import org.postgresql.util.PGInterval;

/**
 * What pgjdbc delivered, as the protocol's dump values
 * (docs/bridge-protocol.md, "Dumps"), encoded after the batch was timed and
 * folded, streamed into the reply (no tree of JSON values: a dump of a
 * batch of depth 1000 of 500 rows is 2.5 million of them):
 *
 *   null -> null; Boolean -> true/false; Short, Integer -> an integer;
 *   Long -> an integer, {"int": "..."} beyond 2^53; Float, Double -> a
 *   number (a Float as the double of its own shortest digits), NaN and the
 *   infinities and -0 as {"float": ...}; String -> a string; byte[] ->
 *   {"bytes": hex}; and {"other": text, "type": class} for BigDecimal
 *   (toPlainString), UUID, the java.time values and PGInterval, their text
 *   in the server's output syntax (DateStyle ISO, IntervalStyle postgres:
 *   " BC" for a year <= 0, every fractional digit the value holds); an
 *   Object[] (a JDBC array) -> a JSON array of its elements' encodings.
 */
final class Dump {
    private Dump() {}

    private static final long MAX_EXACT = 1L << 53;

    /** Write v's dump value. */
    static void write(JsonWriter w, Object v) throws IOException {
        if (v == null) {
            w.nullValue();
        } else if (v instanceof Boolean) {
            w.value((boolean) (Boolean) v);
        } else if (v instanceof Short || v instanceof Integer) {
            w.value(((Number) v).longValue());
        } else if (v instanceof Long) {
            long x = (Long) v;
            if (x >= -MAX_EXACT && x <= MAX_EXACT)
                w.value(x);
            else
                tagged(w, "int", Long.toString(x));
        } else if (v instanceof Float) {
            float f = (Float) v;
            if (special(f) != null)
                tagged(w, "float", special(f));
            else // the double that prints the float's own digits
                w.value(Double.parseDouble(Float.toString(f)));
        } else if (v instanceof Double) {
            double d = (Double) v;
            if (special(d) != null)
                tagged(w, "float", special(d));
            else
                w.value(d);
        } else if (v instanceof String) {
            w.value((String) v);
        } else if (v instanceof byte[]) {
            tagged(w, "bytes", hex((byte[]) v));
        } else if (v instanceof Object[]) {
            w.beginArray();
            for (Object e : (Object[]) v)
                write(w, e);
            w.endArray();
        } else {
            w.beginObject();
            w.name("other").value(text(v));
            w.name("type").value(v.getClass().getName());
            w.endObject();
        }
    }

    /**
     * A dump's "results": per execution, its columns (name, type OID) and
     * its rows of converted values.
     */
    static void results(JsonWriter w, java.util.List<String[]> names, java.util.List<int[]> oids,
            java.util.List<Object[][]> rows) throws IOException {
        w.beginArray();
        for (int e = 0; e < rows.size(); e++) {
            w.beginObject();
            w.name("columns").beginArray();
            for (int j = 0; j < names.get(e).length; j++) {
                w.beginObject();
                w.name("name").value(names.get(e)[j]);
                w.name("type").value(oids.get(e)[j]);
                w.endObject();
            }
            w.endArray();
            w.name("rows").beginArray();
            for (Object[] row : rows.get(e)) {
                w.beginArray();
                for (Object v : row)
                    write(w, v);
                w.endArray();
            }
            w.endArray();
            w.endObject();
        }
        w.endArray();
    }

    /** The server's text of a value pgjdbc converted into an object. */
    private static String text(Object v) {
        if (v instanceof BigDecimal)
            return ((BigDecimal) v).toPlainString();
        if (v instanceof UUID)
            return v.toString();
        if (v instanceof LocalDate) {
            LocalDate d = (LocalDate) v;
            return date(d) + bc(d.getYear());
        }
        if (v instanceof LocalTime)
            return time((LocalTime) v);
        if (v instanceof LocalDateTime) {
            LocalDateTime t = (LocalDateTime) v;
            return date(t.toLocalDate()) + " " + time(t.toLocalTime()) + bc(t.getYear());
        }
        if (v instanceof OffsetDateTime) {
            OffsetDateTime o = (OffsetDateTime) v;
            String off = "+00";
            try {
                o = o.withOffsetSameInstant(ZoneOffset.UTC);
            } catch (java.time.DateTimeException e) { // OffsetDateTime.MAX (pgjdbc's infinity): its own offset
                int s = o.getOffset().getTotalSeconds();
                off = String.format("%s%02d", s < 0 ? "-" : "+", Math.abs(s) / 3600)
                        + (s % 3600 != 0 ? String.format(":%02d", Math.abs(s) % 3600 / 60) : "");
            }
            LocalDateTime t = o.toLocalDateTime();
            return date(t.toLocalDate()) + " " + time(t.toLocalTime()) + off + bc(t.getYear());
        }
        if (v instanceof PGInterval)
            return interval((PGInterval) v);
        return String.valueOf(v);
    }

    private static String special(double d) {
        if (Double.isNaN(d))
            return "NaN";
        if (Double.isInfinite(d))
            return d > 0 ? "Infinity" : "-Infinity";
        if (d == 0 && 1 / d < 0)
            return "-0";
        return null;
    }

    private static void tagged(JsonWriter w, String key, String text) throws IOException {
        w.beginObject();
        w.name(key).value(text);
        w.endObject();
    }

    private static String hex(byte[] b) {
        StringBuilder s = new StringBuilder(2 * b.length);
        for (byte x : b)
            s.append(Character.forDigit((x >> 4) & 15, 16)).append(Character.forDigit(x & 15, 16));
        return s.toString();
    }

    /** YYYY-MM-DD, a year <= 0 as 1 - year (the caller adds " BC"). */
    private static String date(LocalDate d) {
        int y = d.getYear();
        return String.format("%04d-%02d-%02d", y <= 0 ? 1 - (long) y : y, d.getMonthValue(), d.getDayOfMonth());
    }

    private static String bc(int year) {
        return year <= 0 ? " BC" : "";
    }

    /** HH:MM:SS and the fraction's digits without trailing zeros. */
    private static String time(LocalTime t) {
        return String.format("%02d:%02d:%02d", t.getHour(), t.getMinute(), t.getSecond()) + fraction(t.getNano());
    }

    private static String fraction(int nanos) {
        if (nanos == 0)
            return "";
        String s = nanos % 1000 == 0 ? String.format(".%06d", nanos / 1000) : String.format(".%09d", nanos);
        int e = s.length();
        while (s.charAt(e - 1) == '0')
            e--;
        return s.substring(0, e);
    }

    /** IntervalStyle postgres, as the server's EncodeInterval writes it. */
    private static String interval(PGInterval v) {
        StringBuilder b = new StringBuilder();
        boolean[] zeroBefore = {true, false}; // is_zero, is_before
        part(b, v.getYears(), "year", zeroBefore);
        part(b, v.getMonths(), "mon", zeroBefore);
        part(b, v.getDays(), "day", zeroBefore);
        int h = v.getHours(), m = v.getMinutes(), s = v.getWholeSeconds(), us = v.getMicroSeconds();
        if (zeroBefore[0] || h != 0 || m != 0 || s != 0 || us != 0) {
            boolean minus = h < 0 || m < 0 || s < 0 || us < 0;
            b.append(zeroBefore[0] ? "" : " ").append(minus ? "-" : zeroBefore[1] ? "+" : "");
            b.append(String.format("%02d:%02d:%02d", Math.abs(h), Math.abs(m), Math.abs(s)));
            b.append(fraction(Math.abs(us) * 1000));
        }
        return b.toString();
    }

    private static void part(StringBuilder b, int value, String unit, boolean[] zeroBefore) {
        if (value == 0)
            return;
        b.append(zeroBefore[0] ? "" : " ").append(zeroBefore[1] && value > 0 ? "+" : "").append(value).append(' ')
                .append(unit).append(value != 1 ? "s" : "");
        zeroBefore[0] = false;
        zeroBefore[1] = value < 0;
    }
}
