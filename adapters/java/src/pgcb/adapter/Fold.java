package pgcb.adapter;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;

/**
 * The fold of a batch (docs/bridge-protocol.md, "The fold"): FNV-1a's step
 * on 32 bits over each execution's row count and, per column, its null
 * count and the sum of its values' contributions, by the kinds the bridge
 * sent with the run. Java's int arithmetic is the protocol's mod 2^32. The
 * caller reads each value from the row the client returned and passes its
 * contribution; one Fold per run or worker, sized once, so that folding
 * allocates nothing.
 */
final class Fold {
    /** What a column's non-null values contribute. */
    static final int ANY = 0, INT = 1, BOOL = 2, STR = 3;

    static final int OFFSET = (int) 2166136261L;
    private static final int PRIME = 16777619;

    static int mix(int h, int x) {
        return (h ^ x) * PRIME;
    }

    /** The run's kinds: null, or one per column (each possibly null); anything unknown is ANY. */
    static int[] parseKinds(JsonElement v) {
        if (v == null || !v.isJsonArray())
            return new int[0];
        JsonArray a = v.getAsJsonArray();
        int[] k = new int[a.size()];
        for (int j = 0; j < k.length; j++) {
            JsonElement e = a.get(j);
            String s = e.isJsonPrimitive() && e.getAsJsonPrimitive().isString() ? e.getAsString() : "";
            k[j] = s.equals("int") ? INT : s.equals("bool") ? BOOL : s.equals("str") ? STR : ANY;
        }
        return k;
    }

    private int[] kinds;
    private int[] nulls;
    private int[] sums;
    private int ncols;
    int nrows;

    Fold(int[] kinds, int ncols) {
        this.kinds = kinds;
        this.nulls = new int[0];
        this.sums = new int[0];
        size(ncols);
    }

    private void size(int n) {
        if (kinds.length < n)
            kinds = java.util.Arrays.copyOf(kinds, n); // the rest ANY (0)
        if (nulls.length < n) {
            nulls = new int[n];
            sums = new int[n];
        }
    }

    /** The kind of column j (ANY beyond the bridge's kinds). */
    int kind(int j) {
        return kinds[j];
    }

    /** Begin an execution whose result has n columns. */
    void start(int n) {
        size(n);
        ncols = n;
        for (int j = 0; j < n; j++) {
            nulls[j] = 0;
            sums[j] = 0;
        }
        nrows = 0;
    }

    void row() {
        nrows++;
    }

    void nul(int j) {
        nulls[j]++;
    }

    /** Column j's non-null value contributes x (0 for kind ANY). */
    void add(int j, int x) {
        sums[j] += x;
    }

    /** The execution's columns (start's n). */
    int ncols() {
        return ncols;
    }

    /** Column j's null count so far. */
    int nulls(int j) {
        return nulls[j];
    }

    /** Column j's sum of contributions so far, mod 2^32. */
    int sum(int j) {
        return sums[j];
    }

    /** Mix the execution into the batch's fold h. */
    int finish(int h) {
        h = mix(h, nrows);
        if (nrows > 0)
            for (int j = 0; j < ncols; j++) {
                h = mix(h, nulls[j]);
                h = mix(h, sums[j]);
            }
        return h;
    }
}
