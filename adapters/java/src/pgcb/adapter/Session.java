package pgcb.adapter;

import java.util.HashMap;
import java.util.Map;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/**
 * The requests (docs/bridge-protocol.md, "The requests, in order"): hello
 * first and once; connect once, after it (with "pool": P, the client's own
 * pool); prepare, run, stream and load (a pool only) after connect; phase
 * and close at any time. Every outcome is a reply, never an exception: a Failure is
 * its failure reply (a failed run or load also says how much completed:
 * none when refused before the first batch); anything else thrown is an
 * internal error, kind protocol, its stack on stderr (the bridge keeps the
 * tail). OutOfMemoryError is not caught: the JVM runs with
 * -XX:+ExitOnOutOfMemoryError and ends, saying so on stderr, whichever
 * thread ran out.
 *
 * phase "warmup" collects garbage (System.gc(): with the serial collector a
 * full collection, done when it returns) and arms the JIT warm-up
 * (JitWarmup.java): each timed warm-up block after it is preceded by
 * untimed batches, a slice of at most 1 s, until the compilers are idle
 * and the per-chunk median stops falling. phase "order" collects nothing
 * and ends it: an order never warms.
 */
final class Session {
    static final int PROTOCOL = 1;
    static final String ADAPTER_VERSION = "1.0.0";
    /** The JIT warm-up's bound by default, ms (option jit_warmup_ms; 0: none). */
    static final long JIT_WARMUP_MS = 10_000;

    private Client client;
    private boolean connected, closed;
    /** The group's JIT warm-up, from phase "warmup" to phase "order" (null: none). */
    private JitWarmup jit;
    private int pool;
    private long jitWarmupMs = JIT_WARMUP_MS;
    private final Map<Integer, Client.Stmt> stmts = new HashMap<>();

    boolean closed() {
        return closed;
    }

    void shutdown() {
        if (client != null)
            client.close();
        client = null;
    }

    /** The reply to one request (null: not a JSON object). */
    Reply handle(JsonElement req) {
        String op = null;
        try {
            if (req == null || !req.isJsonObject())
                throw Failure.protocol("request is not a JSON object");
            JsonObject rq = req.getAsJsonObject();
            op = Req.string(rq, "op");
            if (op == null)
                throw Failure.protocol("request without a string op");
            if (client == null && !op.equals("hello") && !op.equals("close"))
                throw Failure.protocol("\"" + op + "\" before hello");
            switch (op) {
            case "hello": return hello(rq);
            case "connect": return connect(rq);
            case "prepare": return prepare(rq);
            case "run": return run(rq);
            case "load": return load(rq);
            case "stream": return stream(rq);
            case "phase": return phase(rq);
            case "close":
                shutdown();
                closed = true;
                return Reply.ok();
            default:
                throw new Failure("unsupported", "unknown op \"" + op + "\" (protocol 1: hello, connect, prepare, "
                        + "run, load, stream, phase, close)");
            }
        } catch (Failure f) {
            return asRun(op, Reply.failure(f));
        } catch (RuntimeException | LinkageError e) {
            e.printStackTrace();
            return asRun(op, Reply.failure(Failure.protocol("internal error: " + Failure.describe(e))));
        }
    }

    /**
     * A failed run always says how many batches completed (a refusal before
     * the first: none); a load too; a stream the rows delivered (none).
     */
    private static Reply asRun(String op, Reply r) {
        if ("run".equals(op)) {
            r.obj.addProperty("done", 0);
            r.arraysBase64(new long[0], new long[0], new int[0], 0);
            r.obj.addProperty("cpu_ns", 0);
        } else if ("load".equals(op)) {
            for (String k : new String[] {"done", "wall_ns", "cpu_ns", "late_ns"})
                r.obj.addProperty(k, 0);
        } else if ("stream".equals(op)) {
            r.obj.addProperty("rows", 0);
        }
        return r;
    }

    private Reply hello(JsonObject rq) {
        if (client != null)
            throw Failure.protocol("a second hello");
        Long proto = Req.integer(rq, "protocol");
        if (proto == null || proto != PROTOCOL)
            throw new Failure("unsupported", "the Java adapter speaks bridge protocol 1, not " + rq.get("protocol"));
        Map<String, String> opts = new HashMap<>();
        JsonElement o = rq.get("options");
        if (o != null && o.isJsonObject())
            for (Map.Entry<String, JsonElement> e : o.getAsJsonObject().entrySet())
                opts.put(e.getKey(), e.getValue().isJsonPrimitive() ? e.getValue().getAsString()
                        : Frames.text(e.getValue()));
        String rf = Req.string(rq, "result_format");
        if (Req.present(rq, "result_format") && !"text".equals(rf) && !"binary".equals(rf))
            throw Failure.protocol("hello: result_format must be \"text\" or \"binary\", not " + rq.get("result_format"));
        if (Req.present(rq, "module_dir"))
            throw Failure.config("module_dir: the Java adapter loads its clients from its class path only "
                    + "(build/adapters/java/lib; another release: client = pgjdbc@RELEASE); module_dir is "
                    + "for the node and python adapters");
        if (opts.containsKey("jit_warmup_ms"))
            jitWarmupMs = Client.count("jit_warmup_ms", "jit_warmup_ms", opts.get("jit_warmup_ms"), 60_000);
        String name = Req.string(rq, "client");
        Client cl;
        if ("pgjdbc".equals(name))
            cl = new PgjdbcClient(opts, rf == null ? "text" : rf);
        else if ("vertx".equals(name))
            cl = new VertxClient(opts);
        else if ("null".equals(name))
            cl = new NullClient(opts);
        else
            throw Failure.config("unknown client \"" + name + "\": the Java adapter knows pgjdbc, vertx, null");
        Client.Info inf = cl.info();
        client = cl;
        Reply r = Reply.ok();
        r.obj.addProperty("protocol", PROTOCOL);
        r.obj.addProperty("adapter", "java");
        r.obj.addProperty("adapter_version", ADAPTER_VERSION);
        r.obj.addProperty("runtime", Jvm.runtime());
        r.obj.addProperty("client", inf.client);
        r.obj.addProperty("client_version", inf.clientVersion);
        r.obj.addProperty("links", inf.links);
        r.obj.addProperty("pipeline", inf.pipeline);
        r.obj.addProperty("no_io", inf.noIo);
        r.obj.addProperty("load", inf.load);
        r.obj.addProperty("stream", inf.stream);
        r.obj.addProperty("text_length", "utf16");
        if (inf.wire != null) {
            JsonObject w = new JsonObject();
            w.addProperty("result_format", inf.wire[0]);
            w.addProperty("describe", inf.wire[1]);
            w.addProperty("sync", inf.wire[2]);
            w.addProperty("statements", inf.wire[3]);
            r.obj.add("wire", w);
        }
        return r;
    }

    private Reply connect(JsonObject rq) {
        if (connected)
            throw Failure.protocol("a second connect");
        int p = 0;
        if (Req.present(rq, "pool")) {
            Long n = Req.integer(rq, "pool");
            if (n == null || n < 1 || n > 100_000)
                throw Failure.protocol("connect: pool must be >= 1, not " + rq.get("pool"));
            if (!client.info().load)
                throw new Failure("unsupported", "this client has no pool (hello said load: false)");
            p = n.intValue();
        }
        JsonElement c = rq.get("conn");
        if (!client.info().noIo && (c == null || !c.isJsonObject()))
            throw Failure.protocol("connect without conn");
        client.connect(c != null && c.isJsonObject() ? c.getAsJsonObject() : null, p);
        connected = true;
        pool = p;
        return Reply.ok();
    }

    private Reply prepare(JsonObject rq) {
        if (!connected)
            throw Failure.protocol("prepare before connect");
        Long id = Req.integer(rq, "stmt");
        if (id == null || id < 0 || id > Integer.MAX_VALUE)
            throw Failure.protocol("prepare without a stmt number");
        String sql = Req.string(rq, "sql");
        if (sql == null)
            throw Failure.protocol("prepare without sql");
        stmts.put(id.intValue(), client.prepare(id.intValue(), sql));
        return Reply.ok();
    }

    private Reply run(JsonObject rq) {
        Plan p = Plan.of(rq, connected, stmts);
        if (jit != null && !jit.done() && !p.dump)
            jit.slice(client, p);
        return client.run(p).reply(p.dump).render();
    }

    private Reply load(JsonObject rq) {
        Load.Spec s = Load.spec(rq, connected, pool, stmts);
        return Load.reply(client.load(s));
    }

    private Reply stream(JsonObject rq) {
        Stream.Spec s = Stream.spec(rq, connected, stmts);
        return Stream.reply(client.stream(s));
    }

    private Reply phase(JsonObject rq) {
        String ph = Req.string(rq, "phase");
        Reply r = Reply.ok();
        if (jit != null)
            jit.end();
        jit = null;
        if ("warmup".equals(ph)) {
            System.gc();
            if (jitWarmupMs > 0)
                jit = new JitWarmup(jitWarmupMs * 1_000_000L);
            r.obj.addProperty("gc", true);
        } else {
            JitWarmup.orderMark();
            r.obj.addProperty("gc", false);
        }
        return r;
    }
}
