package pgcb.adapter;

import java.util.Map;

import com.google.gson.JsonObject;

/** One client library behind the protocol: the pgjdbc, vertx and null clients. */
interface Client {
    /** The client-dependent part of the hello reply. */
    final class Info {
        String client, clientVersion, links;
        boolean pipeline, noIo, load;
        /** hello's "stream": the client answers the stream request (Stream.java). */
        boolean stream;
        /** hello's "wire" (null: unknown, the null client): result_format, describe, sync, statements. */
        String[] wire;
    }

    /** A prepared statement as the adapter knows it, by the bridge's number. */
    final class Stmt {
        final int ncols;
        /** The parameters the statement takes (-1: any count, the null client). */
        final int nparams;

        Stmt(int ncols, int nparams) {
            this.ncols = ncols;
            this.nparams = nparams;
        }
    }

    Info info();

    /** One connection (pool 0) or the client's pool of `pool`, all open on return. */
    void connect(JsonObject conn, int pool);

    /** Make statement id ready on every connection. */
    Stmt prepare(int id, String sql);

    /** A timed block of batches (Block's loop). */
    Block run(Plan p);

    /** A timed load over the pool. */
    Load.Result load(Load.Spec s);

    /** One whole result, buffered or streamed, timed and folded (Stream.java); a failure in its Result. */
    Stream.Result stream(Stream.Spec s);

    /** Close every connection (and the pool); never throws. */
    void close();

    /** Options the client knows: an unknown key is kind config, listing them. */
    static void checkOptions(String client, Map<String, String> opts, String... known) {
        java.util.List<String> bad = new java.util.ArrayList<>();
        for (String k : opts.keySet())
            if (!java.util.Arrays.asList(known).contains(k))
                bad.add(k);
        if (!bad.isEmpty()) {
            java.util.Collections.sort(bad);
            throw Failure.config("unknown option \"" + bad.get(0) + "\" for client " + client + ": it knows "
                    + (known.length == 0 ? "no options" : String.join(", ", known)));
        }
    }

    /** A yes/no option. */
    static boolean yesNo(String client, String key, String v) {
        switch (v.toLowerCase(java.util.Locale.ROOT)) {
        case "yes": case "on": case "true": case "1":
            return true;
        case "no": case "off": case "false": case "0":
            return false;
        default:
            throw Failure.config(client + ": " + key + " = \"" + v + "\": say yes or no");
        }
    }

    /** A count option: an integer from 0 to max. */
    static long count(String client, String key, String v, long max) {
        try {
            long n = Long.parseLong(v);
            if (n >= 0 && n <= max)
                return n;
        } catch (NumberFormatException e) {
            // below
        }
        throw Failure.config(client + ": " + key + " = \"" + v + "\": want a count from 0 to " + max);
    }
}
