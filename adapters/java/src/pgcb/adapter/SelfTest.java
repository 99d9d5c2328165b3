package pgcb.adapter;

import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Proxy;
import java.math.BigDecimal;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;

/**
 * The adapter's self-test against the bridge's shared test vectors
 * (tests/vectors/folds.json and frames.json; docs/bridge-protocol.md,
 * "Frames", "run" and "The fold"): the adapter's own Fold, Values.fold,
 * PgjdbcClient.contribution, Block.reply, Reply, Frames.read and
 * Frames.write, with no server and no network. Run from the checkout's top
 * after make (or adapters/java/build.sh):
 *
 *   build/adapters/java/jdk/bin/java -cp build/adapters/java/pgcb-adapter-java.jar pgcb.adapter.SelfTest [DIR]
 *
 * DIR: the vectors' directory (else $PGCB_VECTORS, else tests/vectors).
 * One line per failed check (FAIL, the vector, the case, got and want);
 * the last line on stdout is "vectors: java: F folds, R frames checked"
 * (F: the fold cases, each once; R: the arrays, requests and replies of
 * frames.json). Exit 0 when every check passed; 1 otherwise, a missing or
 * unreadable vectors file included.
 */
public final class SelfTest {
    private SelfTest() {}

    private static int failures, folds, frames;

    private static synchronized void fail(String what) {
        failures++;
        System.out.println("FAIL " + what);
    }

    public static void main(String[] args) {
        String dir = args.length > 0 ? args[0] : System.getenv("PGCB_VECTORS");
        Path d = Path.of(dir != null && !dir.isEmpty() ? dir : "tests/vectors");
        JsonObject f = load(d.resolve("folds.json")), fr = load(d.resolve("frames.json"));
        if (f != null)
            folds(f, textLength());
        if (fr != null)
            frames(fr);
        System.out.println("vectors: java: " + folds + " folds, " + frames + " frames checked");
        System.exit(failures == 0 ? 0 : 1);
    }

    /** A vectors file as a JSON object; null (and a failure) when it cannot be read. */
    private static JsonObject load(Path p) {
        try {
            return JsonParser.parseString(Files.readString(p, StandardCharsets.UTF_8)).getAsJsonObject();
        } catch (IOException | RuntimeException e) {
            fail(p + ": cannot read the vectors: " + Failure.describe(e));
            return null;
        }
    }

    /** The text_length unit the adapter's hello declares (the null client's: no I/O). */
    private static String textLength() {
        Session s = new Session();
        Reply r = s.handle(JsonParser.parseString("{\"op\":\"hello\",\"protocol\":1,\"client\":\"null\"}"));
        s.shutdown();
        JsonElement u = r.obj.get("text_length");
        if (u == null)
            fail("hello: no text_length in " + Frames.text(r.obj));
        return u == null ? "utf16" : u.getAsString();
    }

    // ---- folds.json ------------------------------------------------------

    /** One execution's result as the client delivered it: type OIDs and rows of Java values. */
    private record Result(int[] oids, List<Object[]> rows) {}

    /** A dumped value a language has no type of its own for ({"other": text, "type": T}): opaque. */
    private record Other(String text, String type) {}

    /**
     * Every case of every vector: the batch's fold for the case's kinds, as
     * the adapter folds the values of each of its two ways to take them
     * (below), must be the case's fold in the hello's unit.
     */
    private static void folds(JsonObject v, String unit) {
        for (JsonElement ve : v.getAsJsonArray("vectors")) {
            JsonObject vec = ve.getAsJsonObject();
            String name = vec.get("name").getAsString();
            List<Result> batch;
            try {
                batch = batch(vec.getAsJsonArray("results"));
            } catch (RuntimeException e) {
                fail("fold: " + name + ": its results: " + Failure.describe(e));
                continue;
            }
            boolean pgjdbc = batch.stream().allMatch(SelfTest::pgjdbcDelivers);
            JsonArray cases = vec.getAsJsonArray("cases");
            for (int c = 0; c < cases.size(); c++) {
                JsonObject cs = cases.get(c).getAsJsonObject();
                String where = "fold: " + name + " / case " + c + " kinds " + Frames.text(cs.get("kinds"));
                long want = cs.getAsJsonObject("fold").get(unit).getAsLong();
                long got = Integer.toUnsignedLong(foldBoxed(Fold.parseKinds(cs.get("kinds")), batch));
                if (got != want)
                    fail(where + " (boxed values: vertx, null, dumps): got " + got + ", want " + want);
                if (pgjdbc) {
                    try {
                        got = Integer.toUnsignedLong(foldPgjdbc(Fold.parseKinds(cs.get("kinds")), batch));
                        if (got != want)
                            fail(where + " (pgjdbc's ResultSet, Values.fold): got " + got + ", want " + want);
                    } catch (SQLException | RuntimeException e) {
                        fail(where + " (pgjdbc's ResultSet, Values.fold): " + Failure.describe(e));
                    }
                }
                folds++;
            }
        }
    }

    /** A vector's results (one per execution) as Java values. */
    private static List<Result> batch(JsonArray results) {
        List<Result> out = new ArrayList<>();
        for (JsonElement re : results) {
            JsonObject r = re.getAsJsonObject();
            JsonArray cols = r.getAsJsonArray("columns");
            int[] oids = new int[cols.size()];
            for (int j = 0; j < oids.length; j++)
                oids[j] = cols.get(j).getAsJsonObject().get("type").getAsInt();
            List<Object[]> rows = new ArrayList<>();
            for (JsonElement row : r.getAsJsonArray("rows")) {
                JsonArray a = row.getAsJsonArray();
                if (a.size() != oids.length)
                    throw new IllegalArgumentException("a row of " + a.size() + " values for " + oids.length + " columns");
                Object[] vals = new Object[a.size()];
                for (int j = 0; j < vals.length; j++)
                    vals[j] = value(a.get(j), oids[j]);
                rows.add(vals);
            }
            out.add(new Result(oids, rows));
        }
        return out;
    }

    /**
     * A dumped value as a Java client delivers it: null, Boolean, an integer
     * as the column's Java type (Short for int2, Integer for int4, Long for
     * int8 and oid and any other: {"int": "N"} too), Double (JSON floats,
     * {"float": "NaN" | "Infinity" | "-Infinity" | "-0"}), String, byte[]
     * ({"bytes": hex}), Other ({"other": text}), Object[] (an array).
     */
    private static Object value(JsonElement e, int oid) {
        if (e.isJsonNull())
            return null;
        if (e.isJsonArray()) {
            JsonArray a = e.getAsJsonArray();
            Object[] out = new Object[a.size()];
            for (int k = 0; k < out.length; k++)
                out[k] = value(a.get(k), 0);
            return out;
        }
        if (e.isJsonObject()) {
            JsonObject o = e.getAsJsonObject();
            if (o.has("int"))
                return integer(Long.parseLong(o.get("int").getAsString()), oid);
            if (o.has("float"))
                return Double.parseDouble(o.get("float").getAsString());
            if (o.has("bytes"))
                return HexFormat.of().parseHex(o.get("bytes").getAsString());
            if (o.has("other"))
                return new Other(o.get("other").getAsString(), o.has("type") ? o.get("type").getAsString() : "");
            throw new IllegalArgumentException("not a dumped value: " + o);
        }
        JsonPrimitive p = e.getAsJsonPrimitive();
        if (p.isBoolean())
            return p.getAsBoolean();
        if (p.isString())
            return p.getAsString();
        String t = p.getAsString();
        if (t.contains(".") || t.contains("e") || t.contains("E"))
            return p.getAsDouble();
        return integer(Long.parseLong(t), oid);
    }

    private static Object integer(long v, int oid) {
        if (oid == 21 && v == (short) v)
            return (short) v;
        if (oid == 23 && v == (int) v)
            return (int) v;
        return v;
    }

    /**
     * The fold of a batch of boxed values, driven as vertx's foldResult,
     * the null client's foldRows and pgjdbc's dumps drive Fold: per
     * execution start(columns), per row row(), per value nul(j) or
     * add(j, contribution(v, kind(j))), then finish(h).
     */
    private static int foldBoxed(int[] kinds, List<Result> batch) {
        Fold f = new Fold(kinds, batch.isEmpty() ? 0 : batch.get(0).oids().length);
        int h = Fold.OFFSET;
        for (Result r : batch) {
            int n = r.oids().length;
            f.start(n);
            for (Object[] row : r.rows()) {
                f.row();
                for (int j = 0; j < n; j++) {
                    Object v = row[j];
                    if (v == null)
                        f.nul(j);
                    else
                        f.add(j, PgjdbcClient.contribution(v, f.kind(j)));
                }
            }
            h = f.finish(h);
        }
        return h;
    }

    /**
     * The fold of a batch as pgjdbc's timed runs take it (PgjdbcClient's
     * execution(), Load's queries): each column's code from its type OID
     * (Values.code), each value read from the ResultSet by Values.fold.
     */
    private static int foldPgjdbc(int[] kinds, List<Result> batch) throws SQLException {
        Fold f = new Fold(kinds, batch.isEmpty() ? 0 : batch.get(0).oids().length);
        int h = Fold.OFFSET;
        for (Result r : batch) {
            int[] cs = codes(r);
            f.start(cs.length);
            try (ResultSet rs = resultSet(r)) {
                while (rs.next()) {
                    f.row();
                    for (int j = 0; j < cs.length; j++)
                        Values.fold(rs, j, cs[j], f);
                }
            }
            h = f.finish(h);
        }
        return h;
    }

    /** Values.code of each column (JDBC's type ARRAY for a column of arrays, as pgjdbc reports one). */
    private static int[] codes(Result r) {
        int[] cs = new int[r.oids().length];
        for (int j = 0; j < cs.length; j++) {
            final int jj = j;
            boolean array = r.rows().stream().anyMatch(row -> row[jj] instanceof Object[]);
            cs[j] = Values.code(r.oids()[j], array ? Types.ARRAY : Types.OTHER);
        }
        return cs;
    }

    /**
     * Whether pgjdbc could have delivered these values (Values.get's types
     * by the column's code): a vector from another language's client (an
     * int8 as a string) is checked as boxed values only.
     */
    private static boolean pgjdbcDelivers(Result r) {
        int[] cs = codes(r);
        for (Object[] row : r.rows())
            for (int j = 0; j < cs.length; j++) {
                Object v = row[j];
                Class<?> want;
                switch (cs[j]) {
                case Values.BOOL: want = Boolean.class; break;
                case Values.INT2: want = Short.class; break;
                case Values.INT4: want = Integer.class; break;
                case Values.INT8: want = Long.class; break;
                case Values.FLOAT4: case Values.FLOAT8: want = Double.class; break;
                case Values.TEXT: want = String.class; break;
                default: want = Object.class; // read for being null only
                }
                if (v != null && !want.isInstance(v))
                    return false;
            }
        return true;
    }

    /**
     * A ResultSet over r's rows, as pgjdbc hands its values to Values: a
     * getter by column number gives the value unboxed (0 or false for SQL
     * NULL, and wasNull() says which), a String as is, an array through
     * java.sql.Array; a value the fold reads for being null only (numeric,
     * bytea, uuid, dates ...) as is when it is of the getter's type, else a
     * stand-in of that type.
     */
    private static ResultSet resultSet(Result r) {
        int[] at = {-1};
        boolean[] wasNull = {false};
        return (ResultSet) Proxy.newProxyInstance(SelfTest.class.getClassLoader(), new Class<?>[] {ResultSet.class},
                (proxy, m, a) -> {
                    switch (m.getName()) {
                    case "next": return ++at[0] < r.rows().size();
                    case "wasNull": return wasNull[0];
                    case "close": return null;
                    default: break;
                    }
                    if (!m.getName().startsWith("get") || a == null || !(a[0] instanceof Integer))
                        throw new UnsupportedOperationException("ResultSet." + m.getName());
                    Object v = r.rows().get(at[0])[(Integer) a[0] - 1];
                    wasNull[0] = v == null;
                    return delivered(v, m.getReturnType());
                });
    }

    private static Object delivered(Object v, Class<?> t) {
        if (t == boolean.class)
            return v != null && (Boolean) v;
        if (t == short.class)
            return v == null ? (short) 0 : ((Number) v).shortValue();
        if (t == int.class)
            return v == null ? 0 : ((Number) v).intValue();
        if (t == long.class)
            return v == null ? 0L : ((Number) v).longValue();
        if (t == float.class)
            return v == null ? 0f : ((Number) v).floatValue();
        if (t == double.class)
            return v == null ? 0d : ((Number) v).doubleValue();
        if (v == null || t.isInstance(v))
            return v;
        if (t == java.sql.Array.class)
            return Proxy.newProxyInstance(SelfTest.class.getClassLoader(), new Class<?>[] {java.sql.Array.class},
                    (proxy, m, a) -> m.getName().equals("getArray") ? v : null);
        if (t == BigDecimal.class)
            return BigDecimal.ZERO;
        if (t == byte[].class)
            return new byte[0];
        throw new ClassCastException("a " + v.getClass().getName() + " for a getter of " + t.getName());
    }

    // ---- frames.json -----------------------------------------------------

    private static void frames(JsonObject v) {
        for (JsonElement a : v.getAsJsonArray("arrays")) {
            arrays(a.getAsJsonObject());
            frames++;
        }
        JsonArray rq = v.getAsJsonArray("requests");
        requests(rq);
        frames += rq.size();
        for (JsonElement r : v.getAsJsonArray("replies")) {
            reply(r.getAsJsonObject());
            frames++;
        }
    }

    /** The bytes Frames.write puts on the socket for r. */
    private static byte[] written(Reply r) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        new Frames(InputStream.nullInputStream(), b).write(r);
        return b.toByteArray();
    }

    private static int lengthAt(byte[] b, int at) {
        return ByteBuffer.wrap(b, at, 4).getInt(); // big-endian
    }

    /**
     * An arrays vector: the n batches' block replied as a timed run's
     * (Block.reply: the JSON reply, then the arrays frame, none for n = 0)
     * must put frame_hex on the socket after the reply's own frame; replied
     * as a dump's, its samples, rows and folds must be the base64 strings.
     */
    private static void arrays(JsonObject a) {
        String name = "frames: arrays " + a.get("name").getAsString();
        JsonArray s = a.getAsJsonArray("samples"), w = a.getAsJsonArray("rows"), f = a.getAsJsonArray("folds");
        int n = s.size();
        Block b = new Block(n);
        for (int i = 0; i < n; i++) {
            b.samples[i] = Long.parseUnsignedLong(s.get(i).getAsString());
            b.rows[i] = Long.parseUnsignedLong(w.get(i).getAsString());
            b.folds[i] = (int) f.get(i).getAsLong();
        }
        b.done = n;
        HexFormat hex = HexFormat.of();
        try {
            byte[] wire = written(b.reply(false));
            int skip = 4 + lengthAt(wire, 0);
            String got = skip > wire.length || skip < 4
                    ? "(the reply's own frame says " + (skip - 4) + " bytes; written: " + hex.formatHex(wire) + ")"
                    : hex.formatHex(Arrays.copyOfRange(wire, skip, wire.length));
            String want = a.get("frame_hex").isJsonNull() ? "" : a.get("frame_hex").getAsString();
            if (!got.equals(want))
                fail(name + ": the arrays frame: got \"" + got + "\", want \"" + want + "\"");
        } catch (IOException | RuntimeException e) {
            fail(name + ": the arrays frame: " + Failure.describe(e));
        }
        Reply d = b.reply(true);
        JsonObject b64 = a.getAsJsonObject("base64");
        for (String k : new String[] {"samples", "rows", "folds"}) {
            JsonElement got = d.obj.get(k);
            if (!b64.get(k).equals(got))
                fail(name + ": base64 " + k + ": got " + got + ", want " + b64.get(k));
        }
    }

    /**
     * The request vectors' bytes, one after another, on a Unix-domain
     * socket (a real descriptor, as fd 3 is), written in pieces and read by
     * Frames.read at most 13 bytes per read(2): every request must decode to
     * its object (a run also into its Plan), then end of file.
     */
    private static void requests(JsonArray rq) {
        Path dir = null;
        try {
            dir = Files.createTempDirectory("pgcb-selftest");
            UnixDomainSocketAddress at = UnixDomainSocketAddress.of(dir.resolve("s"));
            try (ServerSocketChannel srv = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
                srv.bind(at);
                SocketChannel wr = SocketChannel.open(at);
                Thread writer = new Thread(() -> {
                    try (OutputStream out = Channels.newOutputStream(wr)) {
                        int piece = 1;
                        for (JsonElement e : rq) {
                            byte[] b = HexFormat.of().parseHex(e.getAsJsonObject().get("wire_hex").getAsString());
                            for (int k = 0; k < b.length; k += piece, piece = piece % 13 + 1)
                                out.write(b, k, Math.min(piece, b.length - k));
                        }
                    } catch (IOException e) {
                        fail("frames: requests: writing them: " + Failure.describe(e));
                    }
                }, "writer");
                writer.setDaemon(true);
                try (SocketChannel rd = srv.accept()) {
                    writer.start();
                    readRequests(new Frames(trickle(Channels.newInputStream(rd)), OutputStream.nullOutputStream()), rq);
                }
                writer.join();
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            fail("frames: requests: the socket: " + Failure.describe(e));
        } finally {
            if (dir != null) {
                dir.resolve("s").toFile().delete();
                dir.toFile().delete();
            }
        }
    }

    /** in, at most 1 to 13 bytes a read (cycling): partial reads of every length and body. */
    private static InputStream trickle(InputStream in) {
        return new FilterInputStream(in) {
            int cap;

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                cap = cap % 13 + 1;
                return super.read(b, off, Math.min(len, cap));
            }
        };
    }

    private static void readRequests(Frames fr, JsonArray rq) {
        boolean broken = false;
        for (JsonElement e : rq) {
            JsonObject v = e.getAsJsonObject();
            String name = "frames: request " + v.get("name").getAsString();
            JsonElement want = v.get("request");
            if (broken) {
                fail(name + ": not read (the stream broke before it)");
                continue;
            }
            try {
                JsonElement got = fr.read();
                if (got == null && !fr.lastWasFrame()) {
                    fail(name + ": got end of file, want " + Frames.text(want));
                    broken = true;
                } else if (!want.equals(got)) {
                    fail(name + ": got " + clip(got == null ? "null" : Frames.text(got)) + ", want "
                            + clip(Frames.text(want)));
                } else if ("run".equals(Req.string(want.getAsJsonObject(), "op"))) {
                    plan(name, got.getAsJsonObject());
                }
            } catch (IOException | RuntimeException x) {
                fail(name + ": " + Failure.describe(x));
                broken = true;
            }
        }
        if (!broken) {
            try {
                JsonElement more = fr.read();
                if (more != null || fr.lastWasFrame())
                    fail("frames: requests: after the last one got " + clip(String.valueOf(more)) + ", want end of file");
            } catch (IOException | RuntimeException x) {
                fail("frames: requests: after the last one got " + Failure.describe(x) + ", want end of file");
            }
        }
    }

    private static String clip(String s) {
        return s.length() <= 300 ? s : s.substring(0, 300) + "... (" + s.length() + " characters)";
    }

    /** A run request as Plan.of resolves it: every field the adapter reads. */
    private static void plan(String name, JsonObject rq) {
        Map<Integer, Client.Stmt> stmts = new HashMap<>();
        for (String k : new String[] {"stmt", "begin", "commit"})
            if (Req.integer(rq, k) != null)
                stmts.put(Req.integer(rq, k).intValue(), new Client.Stmt(0, -1));
        Plan p = Plan.of(rq, true, stmts);
        List<String> bad = new ArrayList<>();
        check(bad, "stmt", p.stmt, rq.get("stmt").getAsInt());
        check(bad, "depth", p.depth, rq.get("depth").getAsInt());
        check(bad, "batches", p.batches, rq.get("batches").getAsInt());
        check(bad, "begin", p.begin, Req.present(rq, "begin") ? rq.get("begin").getAsInt() : -1);
        check(bad, "commit", p.commit, Req.present(rq, "commit") ? rq.get("commit").getAsInt() : -1);
        check(bad, "dump", p.dump, Req.bool(rq, "dump"));
        List<Integer> kinds = new ArrayList<>();
        if (Req.present(rq, "kinds"))
            for (JsonElement k : rq.getAsJsonArray("kinds"))
                kinds.add(Map.of("int", Fold.INT, "bool", Fold.BOOL, "str", Fold.STR).getOrDefault(k.getAsString(), Fold.ANY));
        check(bad, "kinds", Arrays.toString(p.kinds), kinds.toString());
        List<List<String>> params = null;
        if (Req.present(rq, "params")) {
            params = new ArrayList<>();
            for (JsonElement set : rq.getAsJsonArray("params")) {
                List<String> vals = new ArrayList<>();
                for (JsonElement x : set.getAsJsonArray())
                    vals.add(x.isJsonNull() ? null : x.getAsString());
                params.add(vals);
            }
        }
        check(bad, "params", p.params == null ? null : Arrays.deepToString(p.params),
                params == null ? null : params.toString());
        for (String b : bad)
            fail(name + ": its Plan's " + b);
    }

    private static void check(List<String> bad, String field, Object got, Object want) {
        if (!String.valueOf(got).equals(String.valueOf(want)))
            bad.add(field + ": got " + got + ", want " + want);
    }

    /**
     * A reply vector written by Frames.write: the length prefix (big-endian)
     * is the byte length of the UTF-8 payload that follows, and nothing
     * else; the payload parses back to the reply.
     */
    private static void reply(JsonObject v) {
        String name = "frames: reply " + v.get("name").getAsString();
        JsonObject want = v.getAsJsonObject("reply");
        Reply r = new Reply();
        for (Map.Entry<String, JsonElement> m : want.entrySet())
            r.obj.add(m.getKey(), m.getValue().deepCopy());
        try {
            byte[] wire = written(r);
            int n = lengthAt(wire, 0);
            if (n != wire.length - 4) {
                fail(name + ": length prefix " + n + ", want the payload's " + (wire.length - 4) + " bytes");
                return;
            }
            String text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(wire, 4, n)).toString();
            JsonElement got = JsonParser.parseString(text);
            if (!want.equals(got))
                fail(name + ": got " + text + ", want " + Frames.text(want));
        } catch (IOException | RuntimeException e) {
            fail(name + ": " + Failure.describe(e));
        }
    }
}
