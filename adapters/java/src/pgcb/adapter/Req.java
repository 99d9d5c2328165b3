package pgcb.adapter;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;

/** A request's fields, read from the decoded object: absent, null or of another type gives null. */
final class Req {
    private Req() {}

    static Long integer(JsonObject rq, String k) {
        JsonElement e = rq.get(k);
        if (e == null || !e.isJsonPrimitive() || !e.getAsJsonPrimitive().isNumber())
            return null;
        JsonPrimitive p = e.getAsJsonPrimitive();
        double d = p.getAsDouble();
        if (d != Math.rint(d) || Math.abs(d) > 9.007199254740992E15)
            return null;
        return p.getAsLong();
    }

    static Double number(JsonObject rq, String k) {
        JsonElement e = rq.get(k);
        if (e == null || !e.isJsonPrimitive() || !e.getAsJsonPrimitive().isNumber())
            return null;
        return e.getAsDouble();
    }

    static String string(JsonObject rq, String k) {
        JsonElement e = rq.get(k);
        if (e == null || !e.isJsonPrimitive() || !e.getAsJsonPrimitive().isString())
            return null;
        return e.getAsString();
    }

    static boolean bool(JsonObject rq, String k) {
        JsonElement e = rq.get(k);
        return e != null && e.isJsonPrimitive() && e.getAsJsonPrimitive().isBoolean() && e.getAsBoolean();
    }

    static boolean present(JsonObject rq, String k) {
        JsonElement e = rq.get(k);
        return e != null && !e.isJsonNull();
    }

    /** params: null, or an array of arrays of strings and nulls (null: SQL NULL). */
    static String[][] params(JsonObject rq) {
        JsonElement p = rq.get("params");
        if (p == null || p.isJsonNull())
            return null;
        if (!p.isJsonArray())
            throw Failure.protocol("params is not an array");
        JsonArray a = p.getAsJsonArray();
        String[][] out = new String[a.size()][];
        for (int i = 0; i < out.length; i++)
            out[i] = set(a.get(i));
        return out;
    }

    /** params of one execution (stream): null, or an array of strings and nulls (null: SQL NULL). */
    static String[] paramSet(JsonObject rq) {
        JsonElement p = rq.get("params");
        return p == null || p.isJsonNull() ? null : set(p);
    }

    private static String[] set(JsonElement set) {
        if (!set.isJsonArray())
            throw Failure.protocol("a parameter set is not an array");
        JsonArray s = set.getAsJsonArray();
        String[] out = new String[s.size()];
        for (int j = 0; j < out.length; j++) {
            JsonElement v = s.get(j);
            if (v.isJsonNull())
                out[j] = null;
            else if (v.isJsonPrimitive() && v.getAsJsonPrimitive().isString())
                out[j] = v.getAsString();
            else
                throw Failure.protocol("a parameter is neither a string nor null");
        }
        return out;
    }
}
