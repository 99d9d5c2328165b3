package pgcb.adapter;

import java.util.Map;

import com.google.gson.JsonObject;

/**
 * One run request, resolved before the first clock read
 * (docs/bridge-protocol.md, "run"): the statement, begin/commit (both or
 * neither), depth, batches, the parameters of execution k of batch i
 * (params[i * depth + k]), whether to dump, the kinds of the fold, and the
 * first execution whose count of parameters is not the statement's (the
 * adapter refuses it when it comes, as the server would: pgjdbc cannot send
 * a Bind with too few or too many values).
 */
final class Plan {
    final int stmt;
    final int begin, commit; // -1: none
    final int depth, batches;
    final String[][] params;
    final boolean dump;
    final int[] kinds;
    final int ncols;
    /** The first execution (i * depth + k) with a wrong count of parameters, or -1. */
    final long badAt;
    /** The statement's parameters (-1: any). */
    final int nparams;

    private Plan(int stmt, int begin, int commit, int depth, int batches, String[][] params, boolean dump,
            int[] kinds, int ncols, long badAt, int nparams) {
        this.stmt = stmt;
        this.begin = begin;
        this.commit = commit;
        this.depth = depth;
        this.batches = batches;
        this.params = params;
        this.dump = dump;
        this.kinds = kinds;
        this.ncols = ncols;
        this.badAt = badAt;
        this.nparams = nparams;
    }

    /**
     * The same batches, n of them, not dumped (the JIT warm-up's): the
     * parameter sets cycled over the n batches.
     */
    Plan withBatches(int n) {
        String[][] ps = null;
        if (params != null) {
            ps = new String[n * depth][];
            for (int e = 0; e < ps.length; e++)
                ps[e] = params[e % params.length];
        }
        long bad = ps == null && nparams > 0 ? 0 : -1;
        if (ps != null && nparams >= 0)
            for (int e = 0; e < ps.length && bad < 0; e++)
                if (ps[e].length != nparams)
                    bad = e;
        return new Plan(stmt, begin, commit, depth, n, ps, false, kinds, ncols, bad, nparams);
    }

    /** The parameters of execution k of batch i (null: none). */
    String[] args(int i, int k) {
        return params == null ? null : params[i * depth + k];
    }

    static Plan of(JsonObject rq, boolean connected, Map<Integer, Client.Stmt> stmts) {
        if (!connected)
            throw Failure.protocol("run before connect");
        Long id = Req.integer(rq, "stmt");
        if (id == null)
            throw Failure.protocol("run without a stmt");
        Client.Stmt st = stmts.get(id.intValue());
        if (st == null)
            throw Failure.protocol("run of statement " + id + ", which was not prepared");
        Long depth = Req.integer(rq, "depth"), batches = Req.integer(rq, "batches");
        if (depth == null || batches == null || depth < 1 || batches < 1 || depth * batches > Integer.MAX_VALUE)
            throw Failure.protocol("run with depth " + depth + " and batches " + batches
                    + " (both must be >= 1)");
        boolean hasBegin = Req.present(rq, "begin"), hasCommit = Req.present(rq, "commit");
        if (hasBegin != hasCommit)
            throw Failure.protocol("run with only one of begin and commit");
        int begin = -1, commit = -1;
        if (hasBegin) {
            Long b = Req.integer(rq, "begin"), c = Req.integer(rq, "commit");
            if (b == null || !stmts.containsKey(b.intValue()))
                throw Failure.protocol("begin statement " + rq.get("begin") + " was not prepared");
            if (c == null || !stmts.containsKey(c.intValue()))
                throw Failure.protocol("commit statement " + rq.get("commit") + " was not prepared");
            begin = b.intValue();
            commit = c.intValue();
        }
        String[][] params = Req.params(rq);
        long badAt = -1;
        long execs = depth * batches;
        if (params != null) {
            if (params.length != execs)
                throw Failure.protocol("run with " + params.length + " parameter sets for " + execs + " executions");
            if (st.nparams >= 0)
                for (int e = 0; e < params.length && badAt < 0; e++)
                    if (params[e].length != st.nparams)
                        badAt = e;
        } else if (st.nparams > 0) {
            badAt = 0;
        }
        return new Plan(id.intValue(), begin, commit, depth.intValue(), batches.intValue(), params,
                Req.bool(rq, "dump"), Fold.parseKinds(rq.get("kinds")), st.ncols, badAt, st.nparams);
    }
}
