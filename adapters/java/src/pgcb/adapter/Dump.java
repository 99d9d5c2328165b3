package pgcb.adapter;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;

import org.postgresql.util.PGInterval;

/**
 * What pgjdbc delivered, as the protocol's dump values
 * (docs/bridge-protocol.md, "Dumps"), encoded after the batch was timed and
 * folded:
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

    static JsonElement value(Object v) {
        if (v == null)
            return JsonNull.INSTANCE;
        if (v instanceof Boolean)
            return new JsonPrimitive((Boolean) v);
        if (v instanceof Short || v instanceof Integer)
            return new JsonPrimitive((Number) v);
        if (v instanceof Long) {
            long x = (Long) v;
            return x >= -MAX_EXACT && x <= MAX_EXACT ? new JsonPrimitive(x) : tagged("int", Long.toString(x));
        }
        if (v instanceof Float) {
            float f = (Float) v;
            return special(f) != null ? tagged("float", special(f)) : new JsonPrimitive(Double.parseDouble(Float.toString(f)));
        }
        if (v instanceof Double) {
            double d = (Double) v;
            return special(d) != null ? tagged("float", special(d)) : new JsonPrimitive(d);
        }
        if (v instanceof String)
            return new JsonPrimitive((String) v);
        if (v instanceof byte[])
            return tagged("bytes", hex((byte[]) v));
        if (v instanceof Object[]) {
            JsonArray a = new JsonArray();
            for (Object e : (Object[]) v)
                a.add(value(e));
            return a;
        }
        return other(text(v), v.getClass().getName());
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
            LocalDateTime t = ((OffsetDateTime) v).withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime();
            return date(t.toLocalDate()) + " " + time(t.toLocalTime()) + "+00" + bc(t.getYear());
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

    private static JsonObject tagged(String key, String text) {
        JsonObject o = new JsonObject();
        o.addProperty(key, text);
        return o;
    }

    private static JsonObject other(String text, String type) {
        JsonObject o = tagged("other", text);
        o.addProperty("type", type);
        return o;
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
