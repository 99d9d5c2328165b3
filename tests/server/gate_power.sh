#!/usr/bin/env bash
# pgcb-test: plain build only: scripts/gate-power.sh drives scripts/ab.sh, which is the same in every build; the statistics run in both (test_signed_rank)
# scripts/gate-power.sh end to end (issue 43, docs/regressions.md "The
# gate's power") against the real server, with the PG* variables of
# tests/run.sh's server:
#           tests/server/gate_power.sh BUILD_DIR
# on a short config (two groups, 32 orders of 15 ms a side, alpha 0.001, so
# that an A/A false alarm is at most 0.1 % of runs, not a flaky test):
#   - one A/A and one run planted 400 % (libpq_sync_plant.so through
#     PGCB_PLANT_PCT: five times as slow, far above any noise): the table
#     says A/A flagged 0/1 and 400 % caught 1/1 for the sign+overall test on
#     all orders, and power.json holds both runs;
#   - a HEAD that crashes in a group (check_crash at depth 10): that run is
#     counted as failed, named with its reason, and left out of the rates;
#   - refusals, one line and no run made: a planted build that does not
#     load (bad magic), a build command that fails.
# Exit status 1 at the first failed check.
set -uo pipefail
(($# == 1)) || { printf 'usage: %s BUILD_DIR\n' "$0" >&2; exit 2; }
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd "$1" && pwd)
gp=$root/scripts/gate-power.sh
tmp=$(mktemp -d /tmp/pgcb-gp-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
n=0
fail() { printf 'FAIL %s\n' "$*"; exit 1; }
pass() { n=$((n + 1)); printf 'ok %d %s\n' "$n" "$*"; }

cat > "$tmp/ab.ini" <<EOF
[bench]
time_ms = 480
queries = 8
warmup_ms = 30
orders = 32
alpha = 0.001
[server]
setup = $root/sql/benchmark_rows.sql
[query.limit_1]
sql = SELECT * FROM benchmark_rows ORDER BY id LIMIT 1
rows = 1
[query.limit_100]
sql = SELECT * FROM benchmark_rows ORDER BY id LIMIT 100
rows = 100
[suite.sequential]
depth = 1
queries = limit_1 limit_100
EOF
{ cat "$tmp/ab.ini"; printf '[suite.pipelined]\ndepth = 10\nqueries = limit_1\n'; } > "$tmp/crash.ini"

# Refusals first: nothing may run.
"$gp" --build-dir "$build" --config "$tmp/ab.ini" --out "$tmp/bad" --runs 1 \
    --plant "$build/tests/fixtures/bad_magic.so" > "$tmp/bad.out" 2> "$tmp/bad.err"
rc=$?
[ "$rc" = 1 ] || fail "a plant that does not load: exit $rc, expected 1"
[ "$(wc -l < "$tmp/bad.err")" = 1 ] || { cat "$tmp/bad.err"; fail "a plant that does not load: not one line"; }
grep -q "does not load: .*bad magic.*no run made" "$tmp/bad.err" || { cat "$tmp/bad.err"; fail "bad plant: the line does not say why"; }
compgen -G "$tmp/bad/size-*" > /dev/null && fail "bad plant: a run was made"
"$gp" --build-dir "$build" --config "$tmp/ab.ini" --out "$tmp/nobuild" --runs 1 --build 'exit 7' \
    > /dev/null 2> "$tmp/nobuild.err"
rc=$?
if [ "$rc" != 1 ] || ! grep -q "exited 7.*no run made" "$tmp/nobuild.err"; then
    cat "$tmp/nobuild.err"
    fail "a failing build: exit $rc, or no one-line reason"
fi
compgen -G "$tmp/nobuild/size-*" > /dev/null && fail "failing build: a run was made"
pass "refused with one line and no run: a plant that does not load, a build that fails"

# One A/A and one 400 % plant.
"$gp" --build-dir "$build" --config "$tmp/ab.ini" --out "$tmp/power" --runs 1 --sizes "0 400" \
    --orders "16 all" > "$tmp/power.out" 2> "$tmp/power.err" ||
    { cat "$tmp/power.err"; fail "gate-power: exit $?"; }
grep -q '^| sign+overall | all (32) | 0/1 \[[^]]*\] | 1/1 \[[^]]*\] |' "$tmp/power/power.md" ||
    { cat "$tmp/power/power.md" "$tmp/power.err"; fail "power: A/A not 0/1 or 400 % not 1/1 (sign+overall, all orders)"; }
/usr/bin/python3 - "$tmp/power/power.json" <<'EOF' || fail "power.json: not both runs, judged by both tests at 16 and all orders"
import json, sys
j = json.load(open(sys.argv[1]))
assert [s["size_pct"] for s in j["sizes"]] == [0, 400], j["sizes"]
for s in j["sizes"]:
    assert [r["ok"] for r in s["runs"]] == [True], s["runs"]
    assert sorted(s["judged"]) == ["sign+overall@16", "sign+overall@all", "sign@16", "sign@all"]
    assert s["judged"]["sign+overall@16"][0]["orders"] == 16
    assert s["judged"]["sign+overall@all"][0]["orders"] == 32
assert j["sizes"][1]["judged"]["sign+overall@all"][0]["overall"] == "slower"
assert j["failed_runs"] == []
EOF
pass "A/A flagged 0 of 1, 400 % caught 1 of 1; both tests at 16 and all orders in power.json"

# A HEAD that crashes in the pipelined group: the run failed, the A/A kept.
"$gp" --build-dir "$build" --config "$tmp/crash.ini" --out "$tmp/crash" --runs 1 --sizes "0 5" \
    --driver "$build/tests/fixtures/check_ok.so" --plant "$build/tests/fixtures/check_crash.so" \
    > "$tmp/crash.out" 2> "$tmp/crash.err" || { cat "$tmp/crash.err"; fail "crash: gate-power exit $?"; }
grep -q "^Runs that failed (left out of the rates): size 5 % run 1: pipelined / limit_1 / depth 10: " \
    "$tmp/crash/power.md" || { cat "$tmp/crash/power.md"; fail "crash: the failed run is not named with its group"; }
# Kept: the A/A counted as one run (flagged or not: check_ok makes its rows
# up in nanoseconds, where two processes of the same code can differ by
# their layout alone -- seen flagged once at pipelined depth 10 with idle
# CPUs polling; the A/A's verdict is the first case's check, on a real
# client), and the crashed run not among them.
grep -q '^| sign+overall | all ([0-9]*) | [01]/1 \[[^]]*\] | — |' "$tmp/crash/power.md" ||
    { cat "$tmp/crash/power.md"; fail "crash: the A/A run is not kept, or the failed run counted"; }
pass "a HEAD that crashes: its run counted as failed with the reason, the A/A kept"
