"""The Python, Go, Rust, Ruby and Java adapters' pools and loads, driven directly over the bridge
protocol (docs/bridge-protocol.md, "load"), without the bridge driver:

    build/adapters/python/venv/bin/python3 tests/server/adapter_load.py BUILD_DIR [CLIENT ...]

(the Python adapter's venv: psycopg, which this script uses too). CLIENT is
python:asyncpg, python:psycopg, python:psycopg_python, python:psycopg2,
python:null, go:pgx, go:pq, go:null, rust:tokio-postgres, rust:sqlx,
rust:null, ruby:pg, ruby:null, java:pgjdbc, java:vertx or java:null (default:
all sixteen). Each adapter is started as "The process" says: one end
of an AF_UNIX socket pair as fd 3, PGCB_BRIDGE_FD=3, PGCB_BRIDGE_PROTOCOL=1,
fd 0 /dev/null, without PGPASSWORD and PGCB_CONNINFO. Needs the server of
the PG* variables (tests/run.sh's); creates sql/benchmark_rows.sql's table.

Per client with a server:
  hello            load: true
  connect pool 4   4 backends with the connect's application_name, at once
  prepare          the LIMIT 1 query and one with a parameter
  run              depth 1: the fold every load query must equal
  load closed      concurrency 8, 0.6 s, min_queries 2000: done >= 2000, every
                   latency > 0, 1 row and the run's fold per query, 4
                   backends active during it (pg_stat_activity); queries/s
  load params      query i binds params[i]: 1 row each
  load rate        1000/s (or, if lower, the highest of 800, 500 ... 50/s
                   under a quarter of the closed loop's rate) over 1 s: never 20% above the rate, every
                   intended query sent, the wall time within the last due
                   time + the longest latency (latency counts from the due
                   time: a loop that paces from completions and times from
                   its late sends fails here), late_ns under the load's
                   duration and within the longest latency (behind on a
                   busy machine, and saying so)
  load, terminate  pg_terminate_backend of one pool backend mid-load: ok
                   false, kind io (or query 57P01), done > 0 and its frame
The null clients: the same load checks without a server, and fail_after's
failure mid-load. One line per check; exit 1 if any failed, 2 if the setup
(an adapter missing, no server) failed: never a skip.
"""
import json
import os
import socket
import struct
import subprocess
import sys
import threading
import time

import psycopg

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SQL1 = "SELECT id, int_value, string_value, null_value, bool_value FROM benchmark_rows ORDER BY id LIMIT 1"
SQLP = "SELECT id, int_value, string_value, null_value, bool_value FROM benchmark_rows WHERE id = $1"
KINDS = ["int", "int", "str", "any", "bool"]
ALL = ["python:asyncpg", "python:psycopg", "python:psycopg_python", "python:psycopg2",
       "python:null", "go:pgx", "go:pq", "go:null",
       "rust:tokio-postgres", "rust:sqlx", "rust:null", "ruby:pg", "ruby:null", "java:pgjdbc", "java:vertx",
       "java:null"]
# The built adapters, by language.
EXES = {"go": "adapters/go/pgcb-adapter-go", "rust": "adapters/rust/pgcb-adapter-rust",
        "java": "adapters/java/pgcb-adapter-java.jar"}

failed = 0


def check(name, ok, detail=""):
    global failed
    if not ok:
        failed += 1
    print("%s %s%s" % ("PASS" if ok else "FAIL", name, (": " + detail) if detail else ""),
          flush=True)
    return ok


class Adapter:
    def __init__(self, cmd):
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        env = {k: v for k, v in os.environ.items() if k not in ("PGPASSWORD", "PGCB_CONNINFO")}
        env.update(PGCB_BRIDGE_FD="3", PGCB_BRIDGE_PROTOCOL="1")
        bfd = b.fileno()
        # The socket to fd 3 by a shell that then execs the adapter
        # (subprocess closes the fds it was not told to keep after any
        # preexec_fn, and cannot be told to keep one that is not open here).
        wrap = ["/bin/sh", "-c", 'exec 3<&%d %d<&-; exec "$@"' % (bfd, bfd), "sh"]
        self.proc = subprocess.Popen(wrap + cmd, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     env=env, pass_fds=(bfd,))
        b.close()
        self.tail = []
        self.reader = threading.Thread(target=self._drain, daemon=True)
        self.reader.start()
        self.sock = a

    def _drain(self):
        for line in self.proc.stdout:
            self.tail = (self.tail + [line.decode(errors="replace").rstrip()])[-20:]

    def _exact(self, n):
        parts, got = [], 0
        while got < n:
            chunk = self.sock.recv(min(n - got, 1 << 20))
            if not chunk:
                raise EOFError("adapter closed its socket (exit %s): %s"
                               % (self.proc.poll(), " | ".join(self.tail[-5:])))
            parts.append(chunk)
            got += len(chunk)
        return b"".join(parts)

    def call(self, req, timeout=60):
        data = json.dumps(req).encode()
        self.sock.settimeout(timeout)
        self.sock.sendall(struct.pack(">I", len(data)) + data)
        n = struct.unpack(">I", self._exact(4))[0]
        reply = json.loads(self._exact(n))
        arrays = None
        if reply.get("arrays") == "frame":
            m = struct.unpack(">I", self._exact(4))[0]
            arrays = self._exact(m)
        return reply, arrays

    def close(self):
        try:
            self.call({"op": "close"}, timeout=5)
        except Exception:
            pass
        self.sock.close()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def split(arrays, n):
    """(latencies, rows, folds) of an arrays frame of n queries."""
    assert len(arrays) == 20 * n, (len(arrays), n)
    lat = struct.unpack("<%dQ" % n, arrays[:8 * n])
    rows = struct.unpack("<%dQ" % n, arrays[8 * n:16 * n])
    folds = struct.unpack("<%dI" % n, arrays[16 * n:])
    return lat, rows, folds


def command(build, lang):
    if lang == "python":  # what the bridge runs: make's copy, else the source
        path = os.path.join(build, "adapters/python/adapter.py")
        if not os.path.exists(path):
            path = os.path.join(ROOT, "adapters/python/adapter.py")
        # and its runtime, the venv's python (br_config.c): BUILD_DIR's, else build's
        py = os.path.join(build, "adapters/python/venv/bin/python3")
        if not os.path.exists(py):
            py = os.path.join(ROOT, "build/adapters/python/venv/bin/python3")
        return [py, "-u", path]
    if lang == "ruby":  # as the bridge runs it (drivers/bridge/br_config.c)
        return ["/usr/bin/ruby", "--disable=did_you_mean",
                os.path.join(build, "adapters/ruby/adapter.rb")]
    if lang == "java":  # likewise: the JDK build.sh linked, the flags of jvm.options, the jar
        return [os.path.join(build, "adapters/java/jdk/bin/java"),
                "@" + os.path.join(build, "adapters/java/jvm.options"), "-jar",
                os.path.join(build, EXES[lang])]
    return [os.path.join(build, EXES[lang])]


def conninfo(app):
    c = {"host": os.environ.get("PGHOST", "/tmp"), "port": os.environ.get("PGPORT", "5432"),
         "user": os.environ.get("PGUSER", "postgres"),
         "dbname": os.environ.get("PGDATABASE", "postgres"), "application_name": app,
         "sslmode": "disable"}
    return c


def backends(admin, app):
    return admin.execute("SELECT pid, state FROM pg_stat_activity WHERE application_name = %s",
                         (app,)).fetchall()


def load_req(stmt, **kw):
    req = {"op": "load", "stmt": stmt, "mode": "closed", "concurrency": 8, "rate": 0,
           "duration_ns": 600_000_000, "min_queries": 2000, "max_queries": 65536,
           "kinds": KINDS, "params": None}
    req.update(kw)
    return req


def check_load(tag, reply, arrays, want_fold, min_queries, nrows=1):
    done = reply.get("done", 0)
    ok = check(tag + ": ok", reply.get("ok") is True, json.dumps(reply)[:300])
    if not ok:
        return None
    check(tag + ": done >= min_queries", done >= min_queries, "done %d" % done)
    lat, rows, folds = split(arrays, done)
    check(tag + ": every latency > 0", min(lat) > 0, "min %d" % min(lat))
    check(tag + ": %d row(s) per query" % nrows, set(rows) == {nrows}, str(sorted(set(rows))[:5]))
    if want_fold is not None:
        check(tag + ": every fold is the run's", set(folds) == {want_fold},
              "%d distinct, run's %d" % (len(set(folds)), want_fold))
    wall = reply.get("wall_ns", 0)
    check(tag + ": wall_ns, cpu_ns", wall > 0 and reply.get("cpu_ns", -1) >= 0
          and sum(lat) >= 0, "wall %s cpu %s" % (wall, reply.get("cpu_ns")))
    return done / (wall / 1e9) if wall else 0.0


def null_pool(build, lang, client, options):
    """A new adapter of `lang` whose null client has `options`, a pool of 4
    and statement 0 (SQL1) prepared."""
    ad = Adapter(command(build, lang))
    ad.call({"op": "hello", "protocol": 1, "client": client, "options": options,
             "result_format": "text"})
    ad.call({"op": "connect", "conn": None, "pool": 4})
    ad.call({"op": "prepare", "stmt": 0, "name": "p", "sql": SQL1, "nparams": 0})
    return ad


def one_client(build, spec, figures):
    lang, client = spec.split(":")
    tag = "%s %s" % (lang, client)
    no_io = client == "null"
    options = {"fail_after": "0"} if no_io else {}
    ad = Adapter(command(build, lang))
    try:
        r, _ = ad.call({"op": "hello", "protocol": 1, "client": client, "options": options,
                        "result_format": "text"})
        if not check(tag + ": hello", r.get("ok") is True, json.dumps(r)[:300]):
            return
        check(tag + ": hello says load: true", r.get("load") is True)
        app = "pgcb_adapter_load_%s_%s_%d" % (lang, client, os.getpid())
        t0 = time.monotonic()
        r, _ = ad.call({"op": "connect", "conn": None if no_io else conninfo(app), "pool": 4})
        if not check(tag + ": connect pool 4", r.get("ok") is True, json.dumps(r)[:300]):
            return
        admin = None
        if not no_io:
            admin = psycopg.connect(autocommit=True)
            n = len(backends(admin, app))
            check(tag + ": 4 backends after connect", n == 4, "%d after %.2f s"
                  % (n, time.monotonic() - t0))
        r, _ = ad.call({"op": "prepare", "stmt": 0, "name": "pgcb_limit_1", "sql": SQL1,
                        "nparams": 0})
        check(tag + ": prepare", r.get("ok") is True, json.dumps(r)[:300])
        r, _ = ad.call({"op": "prepare", "stmt": 1, "name": "pgcb_by_id", "sql": SQLP,
                        "nparams": 1})
        check(tag + ": prepare with a parameter", r.get("ok") is True, json.dumps(r)[:300])
        r, arr = ad.call({"op": "run", "stmt": 0, "depth": 1, "batches": 50, "begin": None,
                          "commit": None, "kinds": KINDS, "params": None, "dump": False})
        if not check(tag + ": run depth 1", r.get("ok") is True and arr is not None,
                     json.dumps(r)[:300]):
            return
        _, _, folds = split(arr, 50)
        fold = folds[0]
        check(tag + ": run's folds agree", set(folds) == {fold})
        r, arr = ad.call({"op": "run", "stmt": 0, "depth": 10, "batches": 5, "begin": None,
                          "commit": None, "kinds": KINDS, "params": None, "dump": False})
        ok = r.get("ok") is True and arr is not None
        check(tag + ": run depth 10 on the pool", ok and set(split(arr, 5)[1]) == {10},
              json.dumps(r)[:300])
        r, _ = ad.call({"op": "run", "stmt": 1, "depth": 2, "batches": 1, "begin": None,
                        "commit": None, "kinds": KINDS, "params": [["7"], ["8"]], "dump": True})
        res = r.get("results") or [{}]
        check(tag + ": a dump on the pool", r.get("ok") is True and len(res) == 2
              and (no_io or res[1].get("rows", [[0]])[0][0] == 8), json.dumps(r)[:300])

        # The closed load, with pg_stat_activity read while it runs.
        seen = []

        def watch():
            time.sleep(0.25)
            seen.extend(backends(admin, app))
        w = None
        if admin is not None:
            w = threading.Thread(target=watch)
            w.start()
        r, arr = ad.call(load_req(0))
        if w is not None:
            w.join()
        qps = check_load(tag + ": load closed c8", r, arr, fold, 2000)
        if qps is not None:
            figures.append((tag, qps, r["cpu_ns"] / max(1, r["done"])))
            print("     %s: closed, concurrency 8, pool 4: %d queries in %.3f s = %.0f queries/s, "
                  "cpu %.0f ns/query" % (tag, r["done"], r["wall_ns"] / 1e9, qps,
                                         r["cpu_ns"] / max(1, r["done"])), flush=True)
        if admin is not None:
            active = [s for s in seen if s[1] == "active"]
            check(tag + ": 4 backends during the load", len(seen) == 4,
                  "%d (%d active)" % (len(seen), len(active)))

        # Parameters: query i binds params[i].
        nq = 3000
        params = [[str(i % 500 + 1)] for i in range(nq)]
        r, arr = ad.call(load_req(1, params=params, max_queries=nq, min_queries=nq,
                                  duration_ns=0))
        if check_load(tag + ": load with params", r, arr, None, nq) is not None:
            check(tag + ": load with params: exactly max_queries", r["done"] == nq,
                  "done %d" % r["done"])

        # Rate mode, at a rate the client can keep: 1000/s, or a quarter of
        # what its closed loop just did (pure-Python psycopg beside another
        # make test managed 254 queries/s against 1000/s: saturated, not
        # mis-scheduled, and its lateness then grows with the load).
        # A rate whose interval is a whole number of nanoseconds (1e9 / rate
        # exact), so that every adapter's rounding of the due times issues
        # exactly `rate` queries in the second (at 758/s one issued 759).
        rate = 1000
        if qps is not None and qps / 4 < rate:
            rate = max([r for r in (800, 500, 400, 250, 200, 125, 100, 50) if r <= qps / 4]
                       or [50])
        r, arr = ad.call(load_req(0, mode="rate", rate=rate, duration_ns=1_000_000_000,
                                  min_queries=0))
        got = check_load(tag + ": load rate %d/s" % rate, r, arr, fold, 0)
        if got is not None:
            # Paced, never faster; slower only when the client cannot keep
            # up (a busy machine: make test's lanes), and then every intended
            # query still sent and the lateness reported (wrk2's rule), not
            # a shorter load: what holds whatever the load of the machine.
            # The wall time must be explained by the schedule: each query's
            # latency counts from its due time (the last due at 999 ms at
            # 1000/s), so
            # the load ends by 999 ms + the longest latency (5 ms for the
            # clock reads around it). A loop that paces from completions and
            # times from its late sends ends later than that, whatever
            # late_ns it reports; and the last query is issued less than the
            # load's duration behind its due time (beside another make test
            # it was 525 ms behind in a 1 s load: a third was too tight).
            late = r.get("late_ns", -1)
            lat, _, _ = split(arr, r["done"])
            last_due = 1_000_000_000 - 1_000_000_000 // rate
            bound = last_due + max(lat) + 5_000_000
            check(tag + ": rate %d/s paced: at most 20%% above the rate, every intended query "
                  "sent, the wall time within the last due time + the longest latency, late "
                  "under the load's duration and within the longest latency" % rate,
                  got <= 1.2 * rate and r["done"] == rate and r["wall_ns"] <= bound
                  and 0 <= late < 1_000_000_000 and late <= max(lat),
                  "%.0f queries/s, done %d, wall_ns %d (bound %d), late_ns %d"
                  % (got, r["done"], r["wall_ns"], bound, late))

        if no_io:
            ad.close()
            ad = null_pool(build, lang, client, {"fail_after": "1000"})
            r, arr = ad.call(load_req(0))
            check(tag + ": injected failure: kind query XX000",
                  r.get("ok") is False and r.get("kind") == "query"
                  and r.get("sqlstate") == "XX000", json.dumps(r)[:300])
            check(tag + ": injected failure: done 1000 and their frame",
                  r.get("done") == 1000 and arr is not None and len(arr) == 20000,
                  "done %s, frame %s" % (r.get("done"), None if arr is None else len(arr)))
            # Queries never answered (every connection stuck after 500):
            # the load fails, kind io, once none completed for the settle
            # time after its duration, keeping the 500. The duration (1.5 s)
            # leaves room for the 500 on a loaded machine: beside another
            # make test the Ruby adapter completed 184 null queries in 200 ms.
            ad.close()
            ad = null_pool(build, lang, client, {"hang_after": "500"})
            t0 = time.monotonic()
            r, arr = ad.call(load_req(0, duration_ns=1_500_000_000, min_queries=0))
            took = time.monotonic() - t0
            check(tag + ": never answered: kind io",
                  r.get("ok") is False and r.get("kind") == "io"
                  and "8 of the load's queries never answered" in r.get("error", ""),
                  json.dumps(r)[:300])
            check(tag + ": never answered: done 500 and their frame",
                  r.get("done") == 500 and arr is not None and len(arr) == 10000,
                  "done %s, frame %s" % (r.get("done"), None if arr is None else len(arr)))
            check(tag + ": never answered: given up 1.5 + 2 to 1.5 + 6.5 s after the start",
                  3.5 <= took <= 8.0, "%.2f s" % took)
            return

        # A query the server refuses: kind query, and the pool works after it.
        r, _ = ad.call({"op": "prepare", "stmt": 2, "name": "pgcb_div", "nparams": 1,
                        "sql": "SELECT 1 / (id - 300) AS q FROM benchmark_rows WHERE id = $1"})
        check(tag + ": prepare a failing query", r.get("ok") is True, json.dumps(r)[:300])
        params = [[str(i % 299 + 1)] for i in range(1000)] + [["300"]] * 10
        r, arr = ad.call(load_req(2, params=params, max_queries=len(params), min_queries=0,
                                  duration_ns=10_000_000_000, kinds=["int"]))
        check(tag + ": refused query: kind query 22012", r.get("ok") is False
              and r.get("kind") == "query" and r.get("sqlstate") == "22012", json.dumps(r)[:300])
        done = r.get("done", 0)
        check(tag + ": refused query: its predecessors' frame", done >= 1000 - 8 and
              arr is not None and len(arr) == 20 * done, "done %d" % done)
        r, arr = ad.call(load_req(0, duration_ns=100_000_000, min_queries=500))
        check_load(tag + ": the pool after a refused query", r, arr, fold, 500)
        n = len(backends(admin, app))
        check(tag + ": still 4 backends", n == 4, "%d" % n)

        # pg_terminate_backend of one pool backend mid-load.
        killed = []

        def kill():
            time.sleep(0.4)
            pids = [p for p, _ in backends(admin, app)]
            if pids:
                admin.execute("SELECT pg_terminate_backend(%s)", (pids[0],))
                killed.append(pids[0])
        k = threading.Thread(target=kill)
        k.start()
        # A 6 s load: a loop that ignores the lost connection runs it out;
        # one that stops ends soon after the kill at 0.4 s (beside another
        # make test the kill itself can come seconds late, hence 5.5 s).
        r, arr = ad.call(load_req(0, duration_ns=6_000_000_000, min_queries=0))
        k.join()
        check(tag + ": terminate: a backend was terminated", bool(killed))
        kind_ok = r.get("ok") is False and (r.get("kind") == "io" or (
            r.get("kind") == "query" and r.get("sqlstate") == "57P01"))
        check(tag + ": terminate: ok false, kind io (or query 57P01)", kind_ok,
              json.dumps(r)[:300])
        done = r.get("done", 0)
        check(tag + ": terminate: done > 0 and its frame", done > 0 and arr is not None
              and len(arr) == 20 * done, "done %s, frame %s"
              % (done, None if arr is None else len(arr)))
        if done and arr is not None and len(arr) == 20 * done:
            lat, rows, folds = split(arr, done)
            check(tag + ": terminate: the completed queries are whole",
                  min(lat) > 0 and set(rows) == {1} and set(folds) == {fold})
        check(tag + ": terminate: wall_ns < 5.5 s of the 6 s load (issuing stopped)",
              0 < r.get("wall_ns", 0) < 5_500_000_000, "wall_ns %s" % r.get("wall_ns"))
        admin.close()
    except Exception as e:
        check(tag + ": no exception", False, "%s: %s" % (type(e).__name__, e))
    finally:
        ad.close()


def asyncpg_reset(build):
    """asyncpg's pool_reset: with yes (asyncpg's default) a load's release
    runs the reset query on the connection, with no it does not: the last
    statement of each pool backend in pg_stat_activity says which; and its
    loop option (asyncio, uvloop), which links names."""
    for reset, loop, want in (("yes", "asyncio", "RESET ALL"), ("no", "uvloop", SQL1)):
        tag = "python asyncpg pool_reset=%s loop=%s" % (reset, loop)
        ad = Adapter(command(build, "python"))
        app = "pgcb_reset_%s_%d" % (reset, os.getpid())
        try:
            r, _ = ad.call({"op": "hello", "protocol": 1, "client": "asyncpg",
                            "options": {"pool_reset": reset, "loop": loop},
                            "result_format": "text"})
            check(tag + ": links name the loop", ("%s " % loop) in r.get("links", ""),
                  json.dumps(r)[:300])
            r, _ = ad.call({"op": "connect", "conn": conninfo(app), "pool": 2})
            if not check(tag + ": connect", r.get("ok") is True, json.dumps(r)[:300]):
                continue
            ad.call({"op": "prepare", "stmt": 0, "name": "p", "sql": SQL1, "nparams": 0})
            r, _ = ad.call(load_req(0, concurrency=2, duration_ns=100_000_000, min_queries=0))
            check(tag + ": load", r.get("ok") is True and r.get("done", 0) > 0,
                  json.dumps(r)[:300])
            with psycopg.connect(autocommit=True) as admin:
                last = [q for (q,) in admin.execute(
                    "SELECT query FROM pg_stat_activity WHERE application_name = %s",
                    (app,)).fetchall()]
            check(tag + ": every pool backend's last statement has %r" % want,
                  len(last) == 2 and all(want in q for q in last), repr(last)[:300])
        finally:
            ad.close()


def setup_table(prog):
    """sql/benchmark_rows.sql run on the PG* server; False (said) if it failed."""
    try:
        with psycopg.connect(autocommit=True) as admin:
            with open(os.path.join(ROOT, "sql/benchmark_rows.sql")) as f:
                for stmt in f.read().split(";\n"):
                    lines = [ln for ln in stmt.splitlines() if not ln.startswith("--")]
                    if "".join(lines).strip():
                        admin.execute("\n".join(lines))
    except psycopg.Error as e:
        print("%s: cannot set up the table: %s" % (prog, e))
        return False
    return True


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    clients = sys.argv[2:] or ALL
    for spec in clients:
        if spec not in ALL:
            print("adapter_load.py: unknown client %r (known: %s)" % (spec, " ".join(ALL)))
            return 2
    for lang, path in EXES.items():
        exe = os.path.join(build, path)
        usable = os.access(exe, os.R_OK if exe.endswith(".jar") else os.X_OK)
        if any(s.startswith(lang + ":") for s in clients) and not usable:
            print("adapter_load.py: %s not built (make, or adapters/%s/build.sh)" % (exe, lang))
            return 2
    if not setup_table("adapter_load.py"):
        return 2
    figures = []
    for spec in clients:
        one_client(build, spec, figures)
    if "python:asyncpg" in clients:
        asyncpg_reset(build)
    for tag, qps, cpu in figures:
        print("figure %-16s %8.0f queries/s at concurrency 8 (pool 4), %6.0f ns CPU/query"
              % (tag, qps, cpu))
    print("%s: %d check(s) failed" % ("FAIL" if failed else "PASS", failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
