"""Streaming suites end to end (issue 42), through build/runner and its result file:

    build/adapters/python/venv/bin/python3 tests/server/stream_e2e.py BUILD_DIR

with the PG* variables of tests/run.sh's server. A run of two streaming suites (buffered,
streamed) over 20,000 and 200,000 rows of sql/stream_rows.sql, two execution orders, the C
drivers and one client of every adapter (node pg and pg-native, python psycopg, go pgx, rust
tokio-postgres, java pgjdbc, ruby pg). Checks, in the JSON:

  - every group says its mode and fetch_rows; every cell is ok, with the rows of its query,
    the same checksum as libpq_sync's (the bridge's own reading stands for a bridged client
    whose per-column counts and sums agree), a time to first row within its median read,
    rows per second, an idiom, and peak memory read;
  - pg-native's streamed cells are skipped, saying it has no streaming idiom, and the streamed
    suite's ranking is every other client's (a client without the idiom does not take the
    suite out of its ranking);
  - libpq_sync buffered "grows" (a PGresult holds every row), libpq_sync streamed and
    rawwire in both modes "bounded" (at these sizes a garbage-collected runtime's young
    generation can still be growing, so bridged clients' verdicts are shown, not asserted:
    conf/stream.ini's 100,000 against 1,000,000 rows decide them);
  - the console's streaming table names every client;
  - aggregate's CSV has each cell's stream figures (tests/aggregate/csv_check.py).
Then one streamed read of 1,000,000 rows through libpq_sync whose backend is terminated
mid-result: its cell FAILED with the server's message (or, when the server, blocked sending
rows, closed without sending it, libpq's "server closed the connection unexpectedly"), and the
run's exit status says so.
Then a query whose rows = is one short: libpq_sync's and psycopg's streamed cells INVALID.
Then [bench] max_rss_mb = 64 (a memory cgroup per client, which this machine must have):
libpq_sync's buffered million rows FAILED "exceeded max_rss_mb (64 MiB)", its streamed read ok
within the limit, and no cgroup left behind.
One line per check; exit 1 if any failed, 2 if the setup failed.
"""
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

import psycopg

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLIENTS = [("pg", "node", "pg"), ("pg_native", "node", "pg-native"),
           ("psycopg", "python", "psycopg"), ("pgx", "go", "pgx"),
           ("tokio_postgres", "rust", "tokio-postgres"), ("pgjdbc", "java", "pgjdbc"),
           ("ruby_pg", "ruby", "pg")]
failed = 0


def check(name, ok, detail=""):
    global failed
    failed += not ok
    print("%s %s%s" % ("PASS" if ok else "FAIL", name, (": " + detail) if detail else ""),
          flush=True)
    return ok


def ini(build, out, drivers, suites, queries, setup=True):
    lines = ["[bench]", "time_ms = 1", "warmup_ms = 1", "orders = 2", "output = " + out,
             "[server]", "conninfo ="]
    if setup:
        lines.append("setup = " + os.path.join(ROOT, "sql/stream_rows.sql"))
    for name, adapter, client in drivers:
        lines += ["[driver.%s]" % name]
        if adapter is None:
            lines += ["path = %s/drivers/%s.so" % (build, name)]
        else:
            lines += ["path = %s/drivers/bridge.so" % build, "adapter = " + adapter,
                      "client = " + client]
    for name, n in queries:
        where = "" if n >= 1000000 else " WHERE id <= %d" % n
        lines += ["[query.%s]" % name,
                  "sql = SELECT * FROM pgcb_stream_rows%s ORDER BY id" % where, "rows = %d" % n]
    for name, mode, reads in suites:
        lines += ["[suite.%s]" % name, "stream = " + mode, "reads = %d" % reads,
                  "fetch_rows = 500", "queries = " + ", ".join(q for q, _ in queries)]
    return "\n".join(lines) + "\n"


def run(build, text, tmp, name):
    path = os.path.join(tmp, name + ".ini")
    with open(path, "w") as f:
        f.write(text)
    p = subprocess.Popen([os.path.join(build, "runner"), "-c", path], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT)
    out, _ = p.communicate(timeout=900)
    run.last_pid = p.pid
    return p.returncode, out.decode(errors="replace")


def main_run(build, tmp):
    out = os.path.join(tmp, "stream.json")
    drivers = [("libpq_sync", None, None), ("rawwire", None, None)] + CLIENTS
    queries = [("rows_20k", 20000), ("rows_200k", 200000)]
    rc, text = run(build, ini(build, out, drivers, [("buffered", "buffered", 2),
                                                    ("streamed", "streamed", 2)], queries),
                   tmp, "stream")
    if not check("the run wrote its result", os.path.exists(out), text[-3000:]):
        return
    check("exit status 0 (a skipped cell is not a failure)", rc == 0, "exit %d" % rc)
    with open(out) as f:
        r = json.load(f)
    names = [d["name"] for d in r["drivers"]]
    rows = dict(queries)
    for g in r["groups"]:
        tag = "%s / %s" % (g["suite"], g["query"])
        st = g.get("stream") or {}
        check(tag + ": mode and fetch_rows", st.get("mode") == g["suite"]
              and st.get("fetch_rows") == 500, str(st))
        ref = g["results"][names.index("libpq_sync")]
        for name, c in zip(names, g["results"]):
            ctag = "%s: %s" % (tag, name)
            if name == "pg_native" and g["suite"] == "streamed":
                check(ctag + ": skipped, saying it has no streaming idiom",
                      c["status"] == "skipped" and "no streaming idiom" in (c.get("error") or ""),
                      "%s: %s" % (c["status"], c.get("error")))
                continue
            if not check(ctag + ": ok", c["status"] == "ok", str(c.get("error"))[:400]):
                continue
            s = c.get("stream") or {}
            check(ctag + ": rows of the query", s.get("rows") == rows[g["query"]], str(s))
            check(ctag + ": libpq_sync's checksum", c["checksum"] == ref["checksum"],
                  "%s vs %s" % (c["checksum"], ref["checksum"]))
            first, med = s.get("first_row_ns"), c.get("median_ns")
            check(ctag + ": 0 < first row <= the slowest read", first is not None and med
                  and 0 < first <= c["max_ns"], "first %s, median %s" % (first, med))
            check(ctag + ": rows/s, idiom, memory", c.get("rows_per_s", 0) > 0
                  and s.get("idiom") and c.get("memory", {}).get("peak_kib", 0) > 0,
                  "%s, %r, %s" % (c.get("rows_per_s"), s.get("idiom"), c.get("memory")))
            if g["query"] == "rows_200k":
                want = {("libpq_sync", "buffered"): "grows", ("libpq_sync", "streamed"): "bounded",
                        ("rawwire", "buffered"): "bounded", ("rawwire", "streamed"): "bounded"}
                w = want.get((name, g["suite"]))
                if w:
                    check(ctag + ": memory " + w, s.get("memory_verdict") == w,
                          "%s, %s B/row" % (s.get("memory_verdict"), s.get("bytes_per_row")))
                else:
                    print("figure %-32s %s, %s B/row" % (ctag, s.get("memory_verdict"),
                                                        s.get("bytes_per_row")))
    rk = ((r.get("rankings") or {}).get("suites") or {}).get("streamed") or []
    ranked = sorted(row.get("driver") for row in rk)
    check("the streamed suite ranks every client but pg_native",
          ranked == sorted(n for n in names if n != "pg_native"), str(ranked))
    csv = os.path.join(tmp, "stream.csv")
    with open(csv, "w") as f:
        p = subprocess.run([os.path.join(build, "aggregate"), "-f", "csv", out], stdout=f,
                           stderr=subprocess.PIPE)
    chk = subprocess.run([sys.executable, os.path.join(ROOT, "tests/aggregate/csv_check.py"),
                          "--csv", csv, out], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    check("aggregate's CSV carries every streaming figure (csv_check.py)",
          p.returncode == 0 and chk.returncode == 0,
          (p.stderr + chk.stdout).decode(errors="replace")[-800:])
    check("the console's streaming table names every client",
          "Streaming:" in text and all(n in text.split("Streaming:", 1)[1] for n in names),
          text[-2000:])


def terminate_when_reading(stop):
    """pg_terminate_backend of the runner's libpq_sync backend once it is reading the
    million rows (its query is active for a while)."""
    with psycopg.connect(autocommit=True) as admin:
        while not stop.is_set():
            got = admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE state = 'active' "
                "AND query LIKE '%pgcb_stream_rows ORDER BY id' AND application_name LIKE "
                "'pgcb-%' AND now() - query_start > interval '150 ms'").fetchall()
            if got:
                return
            time.sleep(0.05)


def terminated_run(build, tmp):
    out = os.path.join(tmp, "killed.json")
    text = ini(build, out, [("libpq_sync", None, None)], [("streamed", "streamed", 3)],
               [("rows_1m", 1000000)], setup=False)
    stop = threading.Event()
    th = threading.Thread(target=terminate_when_reading, args=(stop,), daemon=True)
    th.start()
    rc, console = run(build, text, tmp, "killed")
    stop.set()
    th.join(5)
    if not check("terminated: the run wrote its result", os.path.exists(out), console[-2000:]):
        return
    with open(out) as f:
        c = json.load(f)["groups"][0]["results"][0]
    # The server's 57P01 message when it could send it; a backend terminated while blocked
    # sending rows to a slow client (a loaded machine) closes without it, and libpq says so.
    err = c.get("error") or ""
    check("terminated: the cell FAILED with the server's message, or libpq's when the server "
          "closed without one",
          c["status"] == "failed" and ("57P01: terminating connection due to administrator "
                                       "command" in err or "server closed the connection "
                                       "unexpectedly" in err), "%s: %s" % (c["status"], err))
    check("terminated: exit status 2", rc == 2, "exit %d" % rc)


def invalid_run(build, tmp):
    """A query whose [query] rows is one short of what it returns: libpq_sync's and a bridged
    client's streamed cells INVALID, as everywhere."""
    out = os.path.join(tmp, "invalid.json")
    text = ini(build, out, [("libpq_sync", None, None), ("psycopg", "python", "psycopg")],
               [("streamed", "streamed", 1)], [("rows_100k", 100000)], setup=False)
    text = text.replace("rows = 100000\n", "rows = 99999\n")
    rc, console = run(build, text, tmp, "invalid")
    if not check("invalid: the run wrote its result", os.path.exists(out), console[-2000:]):
        return
    with open(out) as f:
        cells = json.load(f)["groups"][0]["results"]
    check("invalid: a wrong row count is INVALID for the C driver and the bridged client",
          [c["status"] for c in cells] == ["invalid", "invalid"],
          "; ".join("%s: %s" % (c["status"], c.get("error")) for c in cells))


def limited_run(build, tmp):
    """[bench] max_rss_mb = 64: libpq_sync's buffered million rows (a PGresult of ~110 MiB) is
    ended by the kernel's OOM killer in its memory cgroup and its cell says so; its streamed
    read of the same rows stays within the limit; the run goes on; no cgroup is left behind."""
    out = os.path.join(tmp, "limited.json")
    text = ini(build, out, [("libpq_sync", None, None)],
               [("buffered", "buffered", 1), ("streamed", "streamed", 1)],
               [("rows_1m", 1000000)], setup=False)
    text = text.replace("[bench]\n", "[bench]\nmax_rss_mb = 64\n", 1)
    rc, console = run(build, text, tmp, "limited")
    if not check("max_rss_mb: the run wrote its result", os.path.exists(out), console[-2000:]):
        return
    with open(out) as f:
        groups = {g["suite"]: g["results"][0] for g in json.load(f)["groups"]}
    b, s = groups.get("buffered", {}), groups.get("streamed", {})
    check("max_rss_mb: the buffered cell FAILED, exceeded max_rss_mb (64 MiB)",
          b.get("status") == "failed" and (b.get("error") or "").startswith(
              "exceeded max_rss_mb (64 MiB): the kernel's OOM killer ended"),
          "%s: %s" % (b.get("status"), b.get("error")))
    check("max_rss_mb: the streamed cell ok within the limit", s.get("status") == "ok"
          and 0 < s.get("memory", {}).get("peak_kib", 0) < 64 * 1024, str(s.get("memory")))
    check("max_rss_mb: exit status 2", rc == 2, "exit %d" % rc)
    # This runner's group only: another make test beside this one has its own.
    mine = "pgcb-%d-" % run.last_pid
    left = [d for root in ("/sys/fs/cgroup/memory", "/sys/fs/cgroup") if os.path.isdir(root)
            for d in os.listdir(root) if d.startswith(mine)]
    check("max_rss_mb: no memory cgroup left behind", not left, str(left))


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
    if not os.access(os.path.join(build, "runner"), os.X_OK):
        print("stream_e2e.py: no %s/runner (make)" % build)
        return 2
    with tempfile.TemporaryDirectory(prefix="pgcb_stream_") as tmp:
        main_run(build, tmp)
        terminated_run(build, tmp)
        invalid_run(build, tmp)
        limited_run(build, tmp)
    print("%s: %d check(s) failed" % ("FAIL" if failed else "PASS", failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
