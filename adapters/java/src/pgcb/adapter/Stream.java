package pgcb.adapter;

import java.util.Map;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

/**
 * The stream request (docs/bridge-protocol.md, "stream"): one execution of
 * a statement, its whole result read buffered (the client's default call,
 * the result held whole) or streamed (the client's own idiom, each row
 * folded as it arrives and dropped), timed with System.nanoTime()
 * (CLOCK_MONOTONIC): t0 just before the query is issued, the first row
 * when it has been folded (no rows: the end), the end when the last row
 * was folded and the client reported the result complete. cpu_ns is
 * Block.cpuNs() (CpuClock) read just before t0 and just after the end.
 *
 * The fold is per column: its null count and the sum of its values'
 * contributions (Fold's), by the kind of the first non-null value the
 * client delivered in it (a column without one: any). Each client decides
 * its columns' kinds ({@link Result#kinds}) and fills {@link Result#fold};
 * this class renders the reply, or the failure with the rows delivered
 * before it.
 */
final class Stream {
    private Stream() {}

    /** One stream request, checked. */
    static final class Spec {
        int stmt;
        boolean streamed;
        /** Rows per fetch (streamed; at least 1). */
        int fetch;
        /** The parameters (null: none). */
        String[] args;
        /** The statement's parameters (-1: any). */
        int nparams;

        /** The count of parameters is not the statement's (the server would refuse it: 08P01). */
        boolean badCount() {
            int got = args == null ? 0 : args.length;
            return nparams >= 0 && got != nparams;
        }

        int given() {
            return args == null ? 0 : args.length;
        }
    }

    /** What the stream did. */
    static final class Result {
        long rows, firstNs, totalNs, cpuNs;
        String idiom;
        /** Per column: its kind (Fold.BOOL, INT, STR, ANY) as the client's values make it. */
        int[] kinds;
        /** Per column: nulls and sums (null: no result). */
        Fold fold;
        Failure fail;

        static Result failed(Failure f, long rows) {
            Result r = new Result();
            r.fail = f;
            r.rows = rows;
            return r;
        }
    }

    static Spec spec(JsonObject rq, boolean connected, Map<Integer, Client.Stmt> stmts) {
        if (!connected)
            throw Failure.protocol("stream before connect");
        Long id = Req.integer(rq, "stmt");
        Client.Stmt st = id == null ? null : stmts.get(id.intValue());
        if (st == null)
            throw Failure.protocol("stream of statement " + rq.get("stmt") + ", which was not prepared");
        String mode = Req.string(rq, "mode");
        if (!"buffered".equals(mode) && !"streamed".equals(mode))
            throw Failure.protocol("stream: mode must be \"buffered\" or \"streamed\", not " + rq.get("mode"));
        Spec s = new Spec();
        s.stmt = id.intValue();
        s.streamed = "streamed".equals(mode);
        Long fetch = Req.integer(rq, "fetch");
        if (s.streamed && (fetch == null || fetch < 1 || fetch > Integer.MAX_VALUE))
            throw Failure.protocol("stream: mode streamed needs a fetch >= 1, not " + rq.get("fetch"));
        s.fetch = fetch == null || fetch < 1 || fetch > Integer.MAX_VALUE ? 0 : fetch.intValue();
        s.args = Req.paramSet(rq);
        s.nparams = st.nparams;
        return s;
    }

    static String kindName(int k) {
        switch (k) {
        case Fold.INT: return "int";
        case Fold.BOOL: return "bool";
        case Fold.STR: return "str";
        default: return "any";
        }
    }

    static Reply reply(Result r) {
        if (r.fail != null) {
            Reply f = Reply.failure(r.fail);
            f.obj.addProperty("rows", r.rows);
            return f;
        }
        Reply ok = Reply.ok();
        long total = Math.max(1, r.totalNs), first = Math.min(total, Math.max(1, r.firstNs));
        ok.obj.addProperty("rows", r.rows);
        ok.obj.addProperty("first_row_ns", first);
        ok.obj.addProperty("total_ns", total);
        ok.obj.addProperty("cpu_ns", Math.max(0, r.cpuNs));
        ok.obj.addProperty("idiom", r.idiom);
        JsonArray cols = new JsonArray();
        if (r.rows > 0 && r.fold != null)
            for (int j = 0; j < r.fold.ncols(); j++) {
                JsonArray c = new JsonArray();
                int nulls = r.fold.nulls(j);
                // A column of nulls only has no value to take a kind from.
                c.add(kindName(nulls < r.rows && j < r.kinds.length ? r.kinds[j] : Fold.ANY));
                c.add(nulls);
                c.add(Integer.toUnsignedLong(r.fold.sum(j)));
                cols.add(c);
            }
        ok.obj.add("columns", cols);
        return ok;
    }
}
