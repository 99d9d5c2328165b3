#!/usr/bin/env bash
# The wire counted and an emulated round-trip time, end to end (issue 41, docs/network.md):
#           tests/server/wire_e2e.sh BUILD_DIR
# Against tests/run.sh's server (unix socket only): a suite with rtt_ms is refused before
# anything runs, naming the key and why. Against a --tcp server of its own:
#   - a run of libpq_sync, rawwire and node's pg at rtt_ms = 0 and 2, sequential (depth 1) and
#     pipelined (depth 10): every cell's round trips per query as the protocol says (1 for a
#     client that waits for each query; 0.1 for rawwire's batch of ten written at once), its
#     messages by type exactly (libpq_sync: Bind, Describe, Execute, Sync; BindComplete,
#     RowDescription, DataRow, CommandComplete, ReadyForQuery, one each), its bytes the same
#     at both RTTs; at rtt 2 the expectation is the rtt-0 median + 2 ms x round trips x depth,
#     and no median is below 2 ms x round trips x depth (a delay cannot be shorter than asked);
#     the proxy's probe added at least 2 ms; the console names the wire and the distance table;
#     no proxy is left when the run ends;
#   - the proxy killed before the groups: the rtt cells FAILED saying the proxy exited, a suite
#     without rtt_ms in the same run measured, exit status 2;
#   - the runner killed with SIGKILL mid-run: its proxy is gone too;
#   - pgcb-proxy alone: a refused upstream counted and said; bad arguments one line, status 2;
#   - under valgrind memcheck (the plain build; a sanitizer build is checked by its own
#     runtime instead): the runner through a run at an RTT, and the proxy alone carrying
#     plain and TLS-refused connections -- no memory error, no definite leak.
set -uo pipefail # not -e: each check reads the status of the line before it
(($# == 1)) || { printf 'usage: %s BUILD_DIR\n' "$0" >&2; exit 2; }
build=$(cd -- "$1" && pwd)
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
runner=$build/runner
proxy=$build/pgcb-proxy
failed=0
check() { # check NAME CONDITION-STATUS [DETAIL]
    if [[ $2 == 0 ]]; then printf 'PASS %s\n' "$1"; else printf 'FAIL %s%s\n' "$1" "${3:+: $3}"; failed=1; fi
}
unix_host=${PGHOST:-}
unix_port=${PGPORT:-5432}

# shellcheck source=tests/lib/own_servers.sh
source "$root/tests/lib/own_servers.sh"
own_servers pgcb-wire
cat >"$tmp/base.ini" <<EOF
[bench]
time_ms = 400
queries = 40
warmup_ms = 50
orders = 2
output = $tmp/out.json

[server]
setup = $root/sql/benchmark_rows.sql

[driver.libpq_sync]
path = $build/drivers/libpq_sync.so

[driver.rawwire]
path = $build/drivers/rawwire.so

[query.limit_1]
sql = SELECT * FROM benchmark_rows ORDER BY id LIMIT 1
rows = 1
EOF

# 1. A server without TCP: refused before anything runs.
{ cat "$tmp/base.ini"; printf '[suite.far]\nrtt_ms = 1\n'; } >"$tmp/unix.ini"
rc=0
out=$(PGHOST=$unix_host PGPORT=$unix_port PGUSER=postgres PGDATABASE=pgcb "$runner" -q -c "$tmp/unix.ini" 2>&1) || rc=$?
line=$(grep -n '^rtt_ms' "$tmp/unix.ini" | cut -d: -f1)
want="runner: $tmp/unix.ini:$line: [suite.far] rtt_ms: the round-trip time is added by a proxy that reaches the server over TCP: the server does not listen on TCP"
[[ $rc != 0 && $out == "$want"* && $(wc -l <<<"$out") == 1 && ! -e $tmp/out.json ]]
check "unix-only server: rtt_ms refused in one line before anything runs" $? "rc $rc: $out"

# 2. A --tcp server of our own.
env_line=$("$own_servers_pgserver" start "$tmp/srv" --tcp 2>"$tmp/srv.log") || { cat "$tmp/srv.log" >&2; exit 2; }
eval "$env_line"
export PGHOST PGPORT PGUSER PGDATABASE
{ cat "$tmp/base.ini"
  printf '\n[driver.pg]\npath = %s/drivers/bridge.so\nadapter = node\nclient = pg\n' "$build"
  printf '\n[suite.sequential]\ndepth = 1\nrtt_ms = 0, 2\n'
  printf '\n[suite.pipelined]\ndepth = 10\nrtt_ms = 0 2\n'; } >"$tmp/run.ini"
rc=0
"$runner" -c "$tmp/run.ini" >"$tmp/run.out" 2>"$tmp/run.err" || rc=$?
check "a run at rtt 0 and 2 ms: exit status 0" "$rc" "$(tail -n 3 "$tmp/run.err")"
python3 - "$tmp/out.json" <<'EOF' || failed=1
import json, sys
r = json.load(open(sys.argv[1]))
drivers = [d["name"] for d in r["drivers"]]
bad = 0
def check(name, ok, detail=""):
    global bad
    bad += not ok
    print("%s %s%s" % ("PASS" if ok else "FAIL", name, ": " + detail if detail and not ok else ""))
    return ok
groups = {(g["suite"], g.get("rtt_ms")): g for g in r["groups"]}
check("four groups, each with its rtt_ms", sorted(groups) == [("pipelined", 0.0), ("pipelined", 2.0),
      ("sequential", 0.0), ("sequential", 2.0)], str(sorted(groups)))
want_rt = {"sequential": {"libpq_sync": 1, "rawwire": 1, "pg": 1},
           "pipelined": {"libpq_sync": 1, "rawwire": 0.1}}
bytes_seen = {}
for (suite, rtt), g in sorted(groups.items()):
    depth = g["depth"]
    for d, c in zip(drivers, g["results"]):
        w = c.get("wire")
        tag = "%s rtt %g %s" % (suite, rtt, d)
        if not check(tag + ": ok with wire figures", c["status"] == "ok" and w is not None,
                     "%s %s" % (c["status"], c.get("error"))):
            continue
        if suite == "pipelined" and d == "pg":
            # pg queues the ten and writes each as it is asked: most go out before a reply
            # is in, how many depends on timing -- fewer than one wait per query
            check(tag + ": round trips per query, from 0.1 to below 1",
                  0.1 - 1e-9 <= w["round_trips"] < 1, str(w["round_trips"]))
        else:
            check(tag + ": round trips per query", abs(w["round_trips"] - want_rt[suite][d]) < 1e-9,
                  str(w["round_trips"]))
        bytes_seen.setdefault((suite, d), set()).add((w["bytes_out"], w["bytes_in"]))
        if d == "libpq_sync":
            check(tag + ": messages sent, by type", w["by_type_out"] ==
                  {"Bind": 1, "Describe": 1, "Execute": 1, "Sync": 1}, str(w["by_type_out"]))
            check(tag + ": messages received, by type", w["by_type_in"] ==
                  {"BindComplete": 1, "RowDescription": 1, "DataRow": 1, "CommandComplete": 1,
                   "ReadyForQuery": 1}, str(w["by_type_in"]))
        check(tag + ": the proxy's CPU per query read", (w["proxy_cpu_ns"] or 0) > 0)
        if rtt > 0:
            base = groups[(suite, 0.0)]["results"][drivers.index(d)]
            exp = base["median_ns"] + rtt * 1e6 * w["round_trips"] * depth
            check(tag + ": expected = rtt-0 median + rtt x round trips x depth",
                  abs(w["expected_ns"] - exp) < 1e-6 * exp, "%s against %s" % (w["expected_ns"], exp))
            floor = rtt * 1e6 * w["round_trips"] * depth
            check(tag + ": median not below rtt x round trips x depth", c["median_ns"] >= floor,
                  "%s < %s" % (c["median_ns"], floor))
        else:
            check(tag + ": no expectation at rtt 0", w["expected_ns"] is None)
    p = g.get("proxy")
    check("%s rtt %g: the proxy's figures" % (suite, rtt), p is not None and p["chunks"] > 0
          and p["refused"] == 0 and p["errors"] == 0, str(p))
    if p and rtt > 0:
        check("%s rtt %g: the probe's added delay is at least the RTT" % (suite, rtt),
              p["added_ns"] is not None and p["added_ns"] >= rtt * 1e6, str(p["added_ns"]))
for k, v in sorted(bytes_seen.items()):
    check("%s %s: the same bytes per query at both RTTs" % k, len(v) == 1, str(v))
sys.exit(1 if bad else 0)
EOF
"$build/aggregate" -f csv "$tmp/out.json" >"$tmp/out.csv" 2>"$tmp/agg.err" &&
    python3 "$root/tests/aggregate/csv_check.py" --csv "$tmp/out.csv" "$tmp/out.json" >"$tmp/csv.out" 2>&1
check "aggregate's CSV: each cell's rtt_ms, round trips, bytes and expectation (csv_check.py)" $? \
    "$(cat "$tmp/agg.err" "$tmp/csv.out" | tail -n 5)"
grep -q 'wire, libpq_sync, per query: 1 round trips; sent Bind 1, Describe 1, Execute 1, Sync 1 (49 B in 1 writes)' "$tmp/run.out" &&
    grep -q '^pipelined / limit_1 / tcp at each round-trip time' "$tmp/run.out" &&
    grep -q '^sequential / limit_1 / tcp / rtt 2 ms' "$tmp/run.out"
check "the console: the wire notes, the titles, the distance table" $?
! pgrep -f "pgcb-proxy --upstream 127.0.0.1:$PGPORT" >/dev/null
check "no proxy left after the run" $?

# 3. The proxy killed before the groups: its cells fail saying so, the rest is measured.
{ cat "$tmp/base.ini"
  printf '\n[suite.direct]\ndepth = 1\n'
  printf '\n[suite.far]\ndepth = 1\nrtt_ms = 1\n'; } >"$tmp/kill.ini"
rc=0
"$runner" -q -c "$tmp/kill.ini" >"$tmp/kill.out" 2>&1 &
rpid=$!
# Killed once it listens: a proxy killed before it has told the runner its
# port did not start at all, which the runner refuses as a setup failure
# (exit 1, nothing measured); under a sanitizer its start is slow enough for
# a kill as soon as it exists to land there.
ppid=""
for _ in $(seq 1 1000); do
    ppid=$(pgrep -f "pgcb-proxy --upstream 127.0.0.1:$PGPORT" | head -n 1 || true)
    [[ -n $ppid ]] && ss -Hltnp 2>/dev/null | grep -q "pid=$ppid," && break
    sleep 0.01
done
[[ -n $ppid ]] && kill -9 "$ppid"
wait "$rpid" || rc=$?
python3 - "$tmp/out.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
ok = True
for g in r["groups"]:
    for c in g["results"]:
        if g["suite"] == "direct":
            ok &= c["status"] == "ok"
        else:
            ok &= c["status"] == "failed" and "the wire proxy (rtt 1 ms, to 127.0.0.1:" in (c.get("error") or "") \
                and "exited" in c["error"]
        if not ok:
            print("unexpected:", g["suite"], c["status"], c.get("error"), file=sys.stderr)
            sys.exit(1)
EOF
kst=$?
[[ -n $ppid && $rc == 2 && $kst == 0 ]]
check "the proxy killed: its cells FAILED saying it exited, the direct suite measured, status 2" $? \
    "proxy '$ppid' rc $rc: $(tail -n 3 "$tmp/kill.out" | tr '\n' ' ')"

# 4. The runner killed with SIGKILL mid-run: no proxy left behind.
sed -e 's/^time_ms = 400/time_ms = 60000/' "$tmp/kill.ini" >"$tmp/long.ini"
"$runner" -q -c "$tmp/long.ini" >/dev/null 2>&1 &
rpid=$!
ppid=""
for _ in $(seq 1 500); do
    ppid=$(pgrep -f "pgcb-proxy --upstream 127.0.0.1:$PGPORT" | head -n 1 || true)
    [[ -n $ppid ]] && break
    sleep 0.01
done
{ kill -9 "$rpid"; wait "$rpid"; } 2>/dev/null
gone=1
for _ in $(seq 1 500); do
    if ! kill -0 "$ppid" 2>/dev/null; then gone=0; break; fi
    sleep 0.01
done
# the hosts the runner had started end with it too (their own parent-death signal)
[[ -n $ppid && $gone == 0 ]]
check "the runner killed with SIGKILL: its proxy is gone" $? "proxy '$ppid'"

# 5. pgcb-proxy alone.
exec 3>"$tmp/port"
"$proxy" --upstream 127.0.0.1:1 --ready-fd 3 2>"$tmp/alone.err" &
apid=$!
exec 3>&-
for _ in $(seq 1 500); do [[ -s $tmp/port ]] && break; sleep 0.01; done
port=$(cat "$tmp/port")
psql "host=127.0.0.1 port=$port sslmode=disable connect_timeout=5" -c 'select 1' >/dev/null 2>&1 && r=1 || r=0
kill "$apid"
wait "$apid" || true
[[ $r == 0 ]] && grep -q 'pgcb-proxy: 1 refused, 0 errors; the last: the upstream 127.0.0.1:1 refused a connection: Connection refused' "$tmp/alone.err"
check "pgcb-proxy alone: a refused upstream closes the client, counted and said" $? "$(cat "$tmp/alone.err")"
rc=0
out=$("$proxy" --upstream 127.0.0.1:5432 --rtt-ms -1 2>&1) || rc=$?
[[ $rc == 2 && $(head -n 1 <<<"$out") == "pgcb-proxy: --rtt-ms '-1': expected milliseconds from 0 to 10000" ]]
check "pgcb-proxy alone: a negative RTT, one line and status 2" $? "rc $rc: $out"
rc=0
out=$("$proxy" --upstream nowhere 2>&1) || rc=$?
[[ $rc == 2 && $(head -n 1 <<<"$out") == "pgcb-proxy: --upstream 'nowhere': expected HOST:PORT, [IPV6]:PORT or /PATH" ]]
check "pgcb-proxy alone: a bad upstream, one line and status 2" $? "rc $rc: $out"

# 6. valgrind (plain build only).
if nm "$runner" 2>/dev/null | grep __asan_init >/dev/null; then
    printf 'SKIP valgrind: a sanitizer build (AddressSanitizer checks it instead)\n'
else
    { cat "$tmp/base.ini"; printf '\n[suite.far]\ndepth = 1\nrtt_ms = 1\n'; } |
        sed -e 's/^time_ms = 400/time_ms = 100/' -e 's/^queries = 40/queries = 5/' >"$tmp/vg.ini"
    valgrind --quiet --error-exitcode=99 --leak-check=full --show-leak-kinds=definite \
        --trace-children=no "$runner" -q -c "$tmp/vg.ini" >"$tmp/vg.out" 2>&1
    check "valgrind: the runner through a run at rtt 1 ms" $? "$(tail -n 5 "$tmp/vg.out")"
    rm -f "$tmp/port"
    exec 3>"$tmp/port"
    valgrind --quiet --error-exitcode=99 --leak-check=full --show-leak-kinds=definite \
        "$proxy" --upstream "127.0.0.1:$PGPORT" --rtt-ms 0.5 --ready-fd 3 2>"$tmp/vgp.err" &
    vpid=$!
    exec 3>&-
    for _ in $(seq 1 1000); do [[ -s $tmp/port ]] && break; sleep 0.01; done
    port=$(cat "$tmp/port")
    n=$(psql "host=127.0.0.1 port=$port sslmode=disable" -Atc 'select count(*) from generate_series(1, 50000)' 2>&1)
    kill "$vpid"
    wait "$vpid"
    vst=$?
    [[ $n == 50000 && $vst == 0 ]] && ! grep -q '^==' "$tmp/vgp.err"
    check "valgrind: pgcb-proxy carrying a connection" $? "status $vst, psql '$n': $(grep -v '^--' "$tmp/vgp.err" | tail -n 5)"
fi
exit "$failed"
