package pgcb.adapter;

/**
 * The runner's SQL (PostgreSQL's $1, $2 ... placeholders, as libpq takes
 * it) as a JDBC user writes it for pgjdbc: each $n outside literals,
 * quoted identifiers, comments and dollar quotes becomes a ?, and JDBC's
 * parameter k (the k-th ?, in text order) binds $n's value; a literal ?
 * there (an operator such as jsonb's ?) becomes ??, pgjdbc's escape for it.
 * pgjdbc 42.5 has no native-placeholder mode: it parses ? itself and sends
 * $n to the server, so the server sees the same statement.
 */
final class SqlText {
    /** The SQL for pgjdbc. */
    final String jdbc;
    /** JDBC parameter k + 1 binds the runner's $(order[k]) (1-based). */
    final int[] order;
    /** The highest $n: the count of parameters the statement takes. */
    final int nparams;

    private SqlText(String jdbc, int[] order, int nparams) {
        this.jdbc = jdbc;
        this.order = order;
        this.nparams = nparams;
    }

    static SqlText of(String sql) {
        StringBuilder out = new StringBuilder(sql.length() + 8);
        int[] order = new int[4];
        int n = 0, max = 0, i = 0, len = sql.length();
        while (i < len) {
            char c = sql.charAt(i);
            int end = i + 1;
            if (c == '\'' || c == '"') {
                end = quoted(sql, i, c, backslashes(sql, i, c));
            } else if (c == '-' && i + 1 < len && sql.charAt(i + 1) == '-') {
                end = sql.indexOf('\n', i);
                end = end < 0 ? len : end;
            } else if (c == '/' && i + 1 < len && sql.charAt(i + 1) == '*') {
                end = blockComment(sql, i);
            } else if (c == '$' && !identPart(sql, i - 1)) {
                int d = i + 1;
                while (d < len && Character.isDigit(sql.charAt(d)))
                    d++;
                if (d > i + 1 && !identPart(sql, d)) {
                    int k = Integer.parseInt(sql.substring(i + 1, d));
                    if (n == order.length)
                        order = java.util.Arrays.copyOf(order, 2 * n);
                    order[n++] = k;
                    max = Math.max(max, k);
                    out.append('?');
                    i = d;
                    continue;
                }
                end = dollarQuoted(sql, i);
            } else if (c == '?') {
                out.append("??");
                i++;
                continue;
            }
            out.append(sql, i, end);
            i = end;
        }
        return new SqlText(out.toString(), java.util.Arrays.copyOf(order, n), max);
    }

    /** Is sql[at] part of an identifier (so that $ or digits there are not a placeholder)? */
    private static boolean identPart(String sql, int at) {
        if (at < 0 || at >= sql.length())
            return false;
        char c = sql.charAt(at);
        return Character.isLetterOrDigit(c) || c == '_' || c == '$';
    }

    /** An E'...' string: backslash escapes. */
    private static boolean backslashes(String sql, int at, char q) {
        return q == '\'' && at > 0 && (sql.charAt(at - 1) == 'E' || sql.charAt(at - 1) == 'e')
                && !identPart(sql, at - 2);
    }

    /** The end of the literal or quoted identifier starting at at (doubled quotes stay inside). */
    private static int quoted(String sql, int at, char q, boolean esc) {
        int i = at + 1, len = sql.length();
        while (i < len) {
            char c = sql.charAt(i);
            if (esc && c == '\\') {
                i += 2;
            } else if (c == q) {
                if (i + 1 < len && sql.charAt(i + 1) == q)
                    i += 2;
                else
                    return i + 1;
            } else {
                i++;
            }
        }
        return len;
    }

    /** The end of a (nested) block comment starting at at. */
    private static int blockComment(String sql, int at) {
        int depth = 0, i = at, len = sql.length();
        while (i < len) {
            if (sql.startsWith("/*", i)) {
                depth++;
                i += 2;
            } else if (sql.startsWith("*/", i)) {
                i += 2;
                if (--depth == 0)
                    return i;
            } else {
                i++;
            }
        }
        return len;
    }

    /** The end of a $tag$...$tag$ string at at, or at + 1 when at is no dollar quote. */
    private static int dollarQuoted(String sql, int at) {
        int t = at + 1, len = sql.length();
        while (t < len && (Character.isLetterOrDigit(sql.charAt(t)) || sql.charAt(t) == '_'))
            t++;
        if (t >= len || sql.charAt(t) != '$' || (t > at + 1 && Character.isDigit(sql.charAt(at + 1))))
            return at + 1;
        String tag = sql.substring(at, t + 1);
        int close = sql.indexOf(tag, t + 1);
        return close < 0 ? len : close + tag.length();
    }
}
