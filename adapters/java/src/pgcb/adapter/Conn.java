package pgcb.adapter;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Properties;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * How the pgjdbc client connects and what its errors mean.
 *
 * The connect request's settings become a jdbc:postgresql URL (host, port,
 * database: nothing secret) and a java.util.Properties (user, password,
 * ApplicationName, options, sslmode, and the client's own settings): the
 * password reaches pgjdbc in Properties only, never a system property (-D),
 * the URL, a command line or a log. A host that starts with / is a socket
 * directory: pgjdbc connects to DIR/.s.PGSQL.PORT through junixsocket's
 * socket factory (socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory
 * $FactoryArg, socketFactoryArg=the path: pgjdbc's documented way to a
 * Unix-domain socket; junixsocket-common and its JNI library, Maven Central's).
 */
final class Conn {
    static final String UNIX_FACTORY = "org.newsclub.net.unix.AFUNIXSocketFactory$FactoryArg";

    final String url;
    final Properties props = new Properties();
    /** Where it connects, for messages: the socket path or host:port. */
    final String where;

    private Conn(String url, String where) {
        this.url = url;
        this.where = where;
    }

    private static String str(JsonObject o, String k) {
        JsonElement e = o.get(k);
        return e != null && e.isJsonPrimitive() ? e.getAsString() : null;
    }

    /** The connection of the connect request's conn, with pgjdbc's settings (prepareThreshold ...). */
    static Conn of(JsonObject c, Properties settings) {
        String host = str(c, "host"), port = str(c, "port"), db = str(c, "dbname");
        if (host == null || host.isEmpty())
            host = "/var/run/postgresql";
        if (port == null || port.isEmpty())
            port = "5432";
        if (!port.matches("[0-9]{1,5}"))
            throw new Failure("connect", "port \"" + port + "\" is not a port number");
        boolean unix = host.startsWith("/");
        String path = host + "/.s.PGSQL." + port;
        String h = unix ? "localhost" : host.contains(":") ? "[" + host + "]" : host;
        String url = "jdbc:postgresql://" + h + ":" + port + "/"
                + URLEncoder.encode(db == null ? "" : db, StandardCharsets.UTF_8).replace("+", "%20");
        Conn cn = new Conn(url, unix ? path : host + ":" + port);
        Properties p = cn.props;
        p.putAll(settings);
        if (str(c, "user") != null)
            p.setProperty("user", str(c, "user"));
        String pw = str(c, "password");
        if (pw != null) {
            Failure.setSecret(pw);
            p.setProperty("password", pw);
        }
        if (str(c, "application_name") != null)
            p.setProperty("ApplicationName", str(c, "application_name"));
        if (str(c, "options") != null)
            p.setProperty("options", str(c, "options"));
        String ssl = str(c, "sslmode");
        p.setProperty("sslmode", ssl == null || ssl.equals("disable") ? "disable" : "require");
        if (unix) {
            p.setProperty("socketFactory", UNIX_FACTORY);
            p.setProperty("socketFactoryArg", path);
            unixSocketsOrFail(path);
        }
        return cn;
    }

    /** junixsocket and its JNI library are there, or kind connect naming its jars and install.sh. */
    private static void unixSocketsOrFail(String path) {
        String why;
        try {
            Class<?> k = Class.forName("org.newsclub.net.unix.AFUNIXSocket");
            if ((Boolean) k.getMethod("isSupported").invoke(null))
                return;
            why = "its JNI library (junixsocket-native-common's) did not load";
        } catch (ReflectiveOperationException | LinkageError e) {
            why = "cannot load it (" + Failure.describe(e) + ")";
        }
        throw new Failure("connect", "client pgjdbc: a Unix-domain socket (" + path + ") needs junixsocket: " + why
                + "; run adapters/java/install.sh (Maven Central's jars into build/adapters/java/lib)");
    }

    /** The server ended the connection (admin_shutdown, crash_shutdown, cannot_connect_now). */
    static boolean gone(String state) {
        return "57P01".equals(state) || "57P02".equals(state) || "57P03".equals(state);
    }

    static boolean closed(Connection c) {
        try {
            return c == null || c.isClosed();
        } catch (SQLException e) {
            return true;
        }
    }

    /**
     * An error of c's: the server's refusal is kind query with its SQLSTATE
     * and message; a broken or ended connection io; anything else pgjdbc
     * refused itself (a value it cannot convert) protocol.
     */
    static Failure classify(SQLException e, Connection c) {
        String state = e.getSQLState();
        ServerErrorMessage srv = e instanceof PSQLException ? ((PSQLException) e).getServerErrorMessage() : null;
        boolean broken = closed(c) || (state != null && state.startsWith("08"));
        if (srv != null) {
            String msg = srv.getMessage() != null ? srv.getMessage() : e.getMessage();
            if (broken || gone(state))
                return new Failure("io", state + ": " + msg);
            return Failure.query(state, msg);
        }
        String msg = "pgjdbc: " + e.getMessage() + (state != null ? " (SQLSTATE " + state + ")" : "");
        return broken ? new Failure("io", msg) : Failure.protocol(msg);
    }
}
