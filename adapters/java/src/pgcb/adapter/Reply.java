package pgcb.adapter;

import java.io.IOException;
import java.util.Base64;

import com.google.gson.JsonObject;
import com.google.gson.stream.JsonWriter;

/**
 * One reply: its JSON object, and the raw arrays frame that follows it (or
 * none). docs/bridge-protocol.md, "run": the three arrays of n batches are
 * either one more frame of exactly 20 x n bytes (samples, then rows, as
 * little-endian unsigned 8-byte integers, then folds as little-endian
 * unsigned 4-byte integers; "arrays": "frame") or three base64 strings of
 * the same bytes in the reply (a failure's, a dump's).
 */
final class Reply {
    /** A dump's "results", written into the reply after obj's members. */
    interface Results {
        void write(JsonWriter w) throws IOException;
    }

    final JsonObject obj = new JsonObject();
    byte[] arrays;
    Results results;
    /** The results rendered (render()): JSON text, spliced into the reply. */
    byte[] rendered;

    /**
     * Render the results now, so that a value the dump cannot encode is this
     * request's failure, not the adapter's end: a protocol failure with the
     * same done/samples/rows/folds/cpu_ns (the bridge then fails the batch).
     */
    Reply render() {
        if (results == null)
            return this;
        try {
            java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream(1 << 12);
            JsonWriter w = new JsonWriter(new java.io.OutputStreamWriter(b, java.nio.charset.StandardCharsets.UTF_8));
            w.setSerializeNulls(true);
            w.setHtmlSafe(false);
            results.write(w);
            w.flush();
            rendered = b.toByteArray();
            results = null;
            return this;
        } catch (IOException | RuntimeException e) {
            Reply f = failure(Failure.protocol("cannot encode the dump of the batch: " + Failure.describe(e)));
            for (String k : new String[] {"samples", "rows", "folds", "cpu_ns"})
                if (obj.has(k))
                    f.obj.add(k, obj.get(k));
            f.obj.addProperty("done", 0);
            return f;
        }
    }

    static Reply ok() {
        Reply r = new Reply();
        r.obj.addProperty("ok", true);
        return r;
    }

    /** ok false, kind, sqlstate (query: XX000 if the client gave none), error. */
    static Reply failure(Failure f) {
        Reply r = new Reply();
        r.obj.addProperty("ok", false);
        r.obj.addProperty("kind", f.kind);
        if ("query".equals(f.kind))
            r.obj.addProperty("sqlstate", f.sqlstate != null ? f.sqlstate : "XX000");
        String msg = Failure.scrub(f.getMessage());
        r.obj.addProperty("error", msg.isEmpty() ? f.kind + " error" : msg);
        return r;
    }

    /** "arrays": "frame" and the frame of n samples, rows and folds; n >= 1. */
    void arraysFrame(long[] samples, long[] rows, int[] folds, int n) {
        obj.addProperty("arrays", "frame");
        arrays = raw(samples, rows, folds, n);
    }

    /** The three arrays of n batches as base64 strings ("" for none). */
    void arraysBase64(long[] samples, long[] rows, int[] folds, int n) {
        byte[] raw = raw(samples, rows, folds, n);
        Base64.Encoder b64 = Base64.getEncoder();
        obj.addProperty("samples", b64.encodeToString(java.util.Arrays.copyOfRange(raw, 0, 8 * n)));
        obj.addProperty("rows", b64.encodeToString(java.util.Arrays.copyOfRange(raw, 8 * n, 16 * n)));
        obj.addProperty("folds", b64.encodeToString(java.util.Arrays.copyOfRange(raw, 16 * n, 20 * n)));
    }

    private static byte[] raw(long[] samples, long[] rows, int[] folds, int n) {
        byte[] b = new byte[20 * n];
        for (int i = 0; i < n; i++) {
            putLong(b, 8 * i, samples[i]);
            putLong(b, 8 * (n + i), rows[i]);
            int f = folds[i], at = 16 * n + 4 * i;
            b[at] = (byte) f;
            b[at + 1] = (byte) (f >>> 8);
            b[at + 2] = (byte) (f >>> 16);
            b[at + 3] = (byte) (f >>> 24);
        }
        return b;
    }

    private static void putLong(byte[] b, int at, long v) {
        for (int k = 0; k < 8; k++)
            b[at + k] = (byte) (v >>> (8 * k));
    }
}
