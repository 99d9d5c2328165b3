package pgcb.adapter;

/**
 * A failed request (docs/bridge-protocol.md, "Frames"): the protocol's kind
 * (config, connect, query, io, protocol, unsupported), a message and, for
 * kind query, the SQLSTATE. A request handler throws it; the session turns
 * it into {"ok": false, "kind": ..., "error": ..., "sqlstate": ...} with the
 * message on one line and the connection's password replaced by ***
 * ({@link #scrub}).
 */
final class Failure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** At most this many characters of a message; the rest is cut with "...". */
    private static final int MAX_CHARS = 1000;

    /** The connect request's password, never to appear in a reply. */
    private static volatile String secret = "";

    final String kind;
    final String sqlstate;

    Failure(String kind, String message) {
        this(kind, message, null);
    }

    Failure(String kind, String message, String sqlstate) {
        super(message, null, false, false);
        this.kind = kind;
        this.sqlstate = sqlstate;
    }

    static Failure protocol(String message) {
        return new Failure("protocol", message);
    }

    static Failure config(String message) {
        return new Failure("config", message);
    }

    static Failure query(String sqlstate, String message) {
        return new Failure("query", message, sqlstate);
    }

    /** Remember the password, so that no reply carries it. */
    static void setSecret(String password) {
        secret = password == null ? "" : password;
    }

    /**
     * msg on one line (its non-empty lines, trimmed, joined with "; "), at
     * most MAX_CHARS, the password replaced by *** (as the bridge does, one
     * shorter than 3 characters is left alone: replacing it would garble
     * every message).
     */
    static String scrub(String msg) {
        StringBuilder b = new StringBuilder();
        for (String line : String.valueOf(msg).split("[\r\n]+")) {
            String t = line.trim();
            if (t.isEmpty())
                continue;
            if (b.length() > 0)
                b.append("; ");
            b.append(t);
        }
        String s = b.toString();
        String pw = secret;
        if (pw.length() >= 3)
            s = s.replace(pw, "***");
        if (s.length() > MAX_CHARS)
            s = s.substring(0, MAX_CHARS - 3) + "...";
        return s;
    }

    /** "ClassName: message" of an unexpected exception, one line. */
    static String describe(Throwable t) {
        String m = t.getMessage();
        return m == null || m.isEmpty() ? t.getClass().getName() : t.getClass().getName() + ": " + m;
    }
}
