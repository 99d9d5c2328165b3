package pgcb.adapter;

import java.io.IOException;

import com.google.gson.JsonElement;
import com.google.gson.JsonParseException;

/**
 * pgcb-adapter-java -- the Java adapter of pgclientbench's bridge driver
 * (docs/bridge-protocol.md, protocol 1). Clients: "pgjdbc" (pgjdbc over
 * one Connection, HikariCP for a pool) and "null" (no I/O). Built by
 * adapters/java/build.sh into pgcb-adapter-java.jar; the bridge runs
 * `java @adapters/java/jvm.options -jar adapters/java/pgcb-adapter-java.jar`.
 *
 * Files: Frames (frames on fd 3), Reply, Failure, Req (request fields),
 * Session (the requests), Plan and Block (a run: its plan, the timed
 * loop), Load (a timed load), Fold, Values and Dump (each value converted
 * as pgjdbc delivers it; dumps), SqlText ($n to ?), Conn (connection
 * settings, errors), PgjdbcClient, HikariPool, NullClient, JitWarmup, Jvm;
 * SelfTest (the shared vectors' self-test, a main class of its own).
 *
 * The main thread reads a request, answers it and reads the next: it runs
 * every timed block itself. Exit 0 at end of file on fd 3 (the bridge is
 * gone) or after close; 1 if the socket breaks.
 */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        int fd = 3;
        String env = System.getenv("PGCB_BRIDGE_FD");
        if (env != null && env.matches("[0-9]+"))
            fd = Integer.parseInt(env);
        Frames ch;
        try {
            ch = Frames.open(fd);
        } catch (IOException e) {
            System.err.println("pgcb-adapter-java: fd " + fd + ": " + e.getMessage());
            System.exit(1);
            return;
        }
        Session s = new Session();
        int status = 0;
        for (;;) {
            JsonElement req;
            try {
                req = ch.read();
            } catch (JsonParseException e) {
                req = null; // the frame was read whole: answer it
            } catch (IOException e) {
                System.err.println("pgcb-adapter-java: " + e.getMessage());
                break;
            }
            if (req == null && !ch.lastWasFrame())
                break; // end of file: the bridge is gone
            Reply r = s.handle(req);
            try {
                ch.write(r);
            } catch (IOException e) {
                System.err.println("pgcb-adapter-java: cannot write a reply: " + e.getMessage());
                status = 1;
                break;
            }
            if (s.closed())
                break;
        }
        s.shutdown();
        System.exit(status);
    }
}
