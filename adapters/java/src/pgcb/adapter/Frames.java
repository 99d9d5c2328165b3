package pgcb.adapter;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
import com.google.gson.stream.JsonWriter;

/**
 * The protocol's frames on the socket the bridge passed (fd 3,
 * PGCB_BRIDGE_FD; docs/bridge-protocol.md, "Frames"): a 4-byte big-endian
 * length N (1 <= N <= 64 MiB), then N bytes of one UTF-8 JSON object; after
 * a timed reply, the raw arrays frame. JSON by Gson (Maven
 * Central's, adapters/java/pom.xml).
 *
 * Java has no public API to open an inherited descriptor by number
 * (System.inheritedChannel() is fd 0's): a FileDescriptor is given the
 * number through its private field, which the jar's manifest opens
 * (Add-Opens: java.base/java.io, honoured for the jar java -jar runs).
 * read(2) and write(2) on it are the socket's; reads block.
 */
final class Frames {
    static final int MAX_FRAME = 64 << 20;

    private static final Gson GSON = new GsonBuilder().disableHtmlEscaping().serializeNulls().create();

    private final InputStream in;
    private final OutputStream out;
    private boolean lastWasFrame;

    /**
     * The frames on a byte stream in (read through a 64 KiB buffer: one
     * read(2) serves many small requests) and out (one write per reply).
     * open() gives it fd 3; SelfTest a socket or a buffer.
     */
    Frames(InputStream in, OutputStream out) {
        this.in = new BufferedInputStream(in, 1 << 16);
        this.out = out;
    }

    /** The frames on descriptor fd, owned from now on. */
    static Frames open(int fd) throws IOException {
        FileDescriptor d = new FileDescriptor();
        try {
            Field f = FileDescriptor.class.getDeclaredField("fd");
            f.setAccessible(true);
            f.setInt(d, fd);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IOException("cannot use file descriptor " + fd + " (run the adapter with java -jar: "
                    + "its manifest opens java.base/java.io): " + Failure.describe(e), e);
        }
        return new Frames(new FileInputStream(d), new FileOutputStream(d));
    }

    /**
     * The next request, parsed; null at end of file (a clean one, or inside
     * a frame: the bridge is gone either way). A payload that is not JSON
     * gives a JsonParseException, and one that is JSON null null (the
     * session's protocol failure either way: see lastWasFrame).
     */
    JsonElement read() throws IOException {
        lastWasFrame = false;
        byte[] hdr = new byte[4];
        if (!readFully(hdr))
            return null;
        long n = ((hdr[0] & 0xffL) << 24) | ((hdr[1] & 0xff) << 16) | ((hdr[2] & 0xff) << 8) | (hdr[3] & 0xff);
        if (n < 1 || n > MAX_FRAME)
            throw new IOException("frame length " + n + " out of range");
        byte[] buf = new byte[(int) n];
        if (!readFully(buf))
            return null;
        lastWasFrame = true;
        JsonElement e = JsonParser.parseString(new String(buf, StandardCharsets.UTF_8));
        return e.isJsonNull() ? null : e;
    }

    /** Did the last read() get a whole frame (whatever its payload)? False: end of file. */
    boolean lastWasFrame() {
        return lastWasFrame;
    }

    private boolean readFully(byte[] b) throws IOException {
        int got = 0;
        while (got < b.length) {
            int k = in.read(b, got, b.length - got);
            if (k < 0)
                return false;
            got += k;
        }
        return true;
    }

    /** A growing buffer whose bytes are read in place. */
    private static final class Buf extends ByteArrayOutputStream {
        Buf() {
            super(1 << 12);
        }

        byte[] bytes() {
            return buf;
        }
    }

    /**
     * Send one reply (and its arrays frame) in one write: the object's
     * members, then a dump's results as rendered (Reply.render()).
     */
    void write(Reply r) throws IOException {
        Buf b = body(r);
        if (b.size() - 4 > MAX_FRAME) {
            Reply e = Reply.failure(new Failure("unsupported",
                    "reply of " + (b.size() - 4) + " bytes exceeds the 64 MiB frame limit"));
            for (String k : new String[] {"done", "cpu_ns", "wall_ns", "late_ns", "samples", "rows", "folds"})
                if (r.obj.has(k))
                    e.obj.add(k, r.obj.get(k));
            r = e;
            b = body(r);
        }
        putLength(b.bytes(), 0, b.size() - 4);
        if (r.arrays != null) {
            byte[] n = new byte[4];
            putLength(n, 0, r.arrays.length);
            b.write(n);
            b.write(r.arrays);
        }
        out.write(b.bytes(), 0, b.size());
        out.flush();
    }

    /** 4 bytes for the length, then the reply's JSON. */
    private static Buf body(Reply r) throws IOException {
        Buf b = new Buf();
        b.write(new byte[4]);
        JsonWriter w = new JsonWriter(new OutputStreamWriter(b, StandardCharsets.UTF_8));
        w.setSerializeNulls(true);
        w.setHtmlSafe(false);
        w.beginObject();
        for (Map.Entry<String, JsonElement> m : r.obj.entrySet()) {
            w.name(m.getKey());
            GSON.toJson(m.getValue(), w);
        }
        w.flush(); // the object is closed by hand, after the results' bytes as rendered
        if (r.rendered != null) {
            b.write((r.obj.size() > 0 ? ",\"results\":" : "\"results\":").getBytes(StandardCharsets.UTF_8));
            b.write(r.rendered);
        }
        b.write('}');
        return b;
    }

    private static void putLength(byte[] b, int at, int n) {
        b[at] = (byte) (n >>> 24);
        b[at + 1] = (byte) (n >>> 16);
        b[at + 2] = (byte) (n >>> 8);
        b[at + 3] = (byte) n;
    }

    /** JSON's text of an element (for messages). */
    static String text(JsonElement e) {
        return GSON.toJson(e);
    }
}
