#!/usr/bin/env bash
# [bench] respawn = order against the real server, with the PG* variables of
# tests/run.sh's server:
#           tests/server/respawn.sh BUILD_DIR
# The same run (libpq_sync and rawwire, two groups, 3 orders) twice in a
# database of its own, once with respawn = as_needed and once with
# respawn = order; the server's own count of sessions in that database
# (pg_stat_database.sessions, read once every backend has gone):
#   - with order, exactly 2 x groups x drivers x orders = 24 more sessions:
#     each order's new host connects once, and the runner once to find that
#     host's backends -- a respawn that did not happen is missing there;
#   - both runs' cells valid (the checksums of each fresh process's first
#     batch agree with the group's), every order measured;
#   - the result says budget.respawn = "order" (absent with as_needed) and
#     the console header says "Processes: respawn = order";
#   - --profile=on with respawn = order: refused in one line, no result.
# Exit status 1 at the first failed check.
set -uo pipefail
(($# == 1)) || { printf 'usage: %s BUILD_DIR\n' "$0" >&2; exit 2; }
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd "$1" && pwd)
tmp=$(mktemp -d /tmp/pgcb-respawn-XXXXXX)
db=pgcb_respawn_$$
trap 'rm -rf "$tmp"; psql -qX -d postgres -c "DROP DATABASE IF EXISTS $db" > /dev/null 2>&1' EXIT
n=0
fail() { printf 'FAIL %s\n' "$*"; exit 1; }
pass() { n=$((n + 1)); printf 'ok %d %s\n' "$n" "$*"; }
sql() { psql -qXAt -d postgres -c "$1"; }

sql "CREATE DATABASE $db" || fail "cannot create the database $db"

# The sessions of $db so far, once none of its backends is left (each
# backend adds its session to the count as it connects, and the count
# reaches the shared statistics when it exits).
sessions() {
    local i
    for ((i = 0; i < 300; i++)); do
        [ "$(sql "SELECT count(*) FROM pg_stat_activity WHERE datname = '$db'")" = 0 ] && break
        sleep 0.1
    done
    sql "SELECT pg_stat_clear_snapshot(); SELECT sessions FROM pg_stat_database WHERE datname = '$db'" | tail -1
}

run() { # run NAME RESPAWN: the sessions it opened
    cat > "$tmp/$1.ini" <<EOF
[bench]
time_ms = 60
queries = 5
warmup_ms = 10
orders = 3
respawn = $2
[server]
conninfo = dbname=$db
setup = $root/sql/benchmark_rows.sql
[driver.libpq_sync]
path = $build/drivers/libpq_sync.so
[driver.rawwire]
path = $build/drivers/rawwire.so
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
    local before after
    before=$(sessions)
    PGDATABASE=$db "$build/runner" -c "$tmp/$1.ini" -o "$tmp/$1.json" > "$tmp/$1.out" 2> "$tmp/$1.err" ||
        { cat "$tmp/$1.err"; fail "respawn = $2: runner exit $?"; }
    after=$(sessions)
    echo $((after - before))
}

as_needed=$(run kept as_needed)
order=$(run fresh order)
[ $((order - as_needed)) = 24 ] ||
    fail "sessions: $as_needed with as_needed, $order with order: $((order - as_needed)) more, expected 24 (2 x 2 groups x 2 drivers x 3 orders)"
pass "respawn = order opened 24 more sessions than as_needed ($order against $as_needed): a new host per driver and order"

/usr/bin/python3 - "$tmp/kept.json" "$tmp/fresh.json" <<'EOF' || fail "the results: not every cell valid with 3 orders, or budget.respawn wrong"
import json, sys
for path, want in ((sys.argv[1], None), (sys.argv[2], "order")):
    j = json.load(open(path))
    assert j["budget"].get("respawn") == want, (path, j["budget"])
    assert len(j["groups"]) == 2, path
    for g in j["groups"]:
        for c in g["results"]:
            assert c["status"] == "ok", (path, g["query"], c.get("driver"), c["status"], c.get("error"))
            med = c["order_medians_ns"]
            assert len(med) == 3 and all(isinstance(m, (int, float)) and m > 0 for m in med), (path, med)
EOF
pass "every cell valid in both runs, 3 orders measured each; budget.respawn = order only in the second"

grep -q "^Processes: respawn = order: each driver's process" "$tmp/fresh.out" ||
    { head -30 "$tmp/fresh.out"; fail "the header does not say respawn = order"; }
grep -q "^Processes:" "$tmp/kept.out" && fail "the header of an as_needed run says Processes:"
pass "the console header names respawn = order (and only then)"

# A profiled run cannot follow processes that change every order: refused
# before anything is measured, in one line naming the key.
"$build/runner" -c "$tmp/fresh.ini" -o "$tmp/prof.json" --profile=on > "$tmp/prof.out" 2> "$tmp/prof.err"
rc=$?
[ "$rc" != 0 ] || fail "--profile=on with respawn = order: exit 0"
if [ "$(wc -l < "$tmp/prof.err")" != 1 ] ||
    ! grep -q "^runner: --profile=on: not with \[bench\] respawn = order" "$tmp/prof.err"; then
    cat "$tmp/prof.err"
    fail "--profile=on with respawn = order: not one line naming respawn = order"
fi
[ -e "$tmp/prof.json" ] && fail "--profile=on with respawn = order: a result was written"
pass "--profile=on with respawn = order refused in one line (exit $rc), nothing measured"
