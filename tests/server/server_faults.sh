#!/usr/bin/env bash
# The server goes away in the middle of a run and comes back:
#   tests/server/server_faults.sh BUILD_DIR
# Our own throw-away cluster (scripts/pgserver.sh). The runner measures five
# groups with three client drivers; as soon as the first group's table is
# out, the server is stopped with `pg_ctl stop -m immediate` and started
# again. Expected: the second group fails for every driver with the
# driver's message, the drivers reconnect for a later group, which succeeds,
# the result file has every group with a status per driver and is complete,
# and the runner exits 2.
set -euo pipefail

prog=server_faults.sh
build=${1:?usage: server_faults.sh BUILD_DIR}
build=$(cd -- "$build" && pwd)
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
command -v jq >/dev/null || { echo "$prog: jq is not installed (scripts/install-deps.sh installs it)" >&2; exit 1; }

tmp=$(mktemp -d /tmp/pgcb-faults.XXXXXX)
chmod 0755 "$tmp" # the server may run as postgres (when we are root)
srv=$tmp/srv
runner_pid=""
cleanup() {
    if [[ -n $runner_pid ]]; then kill "$runner_pid" 2>/dev/null || true; fi
    "$root/scripts/pgserver.sh" stop "$srv" >/dev/null 2>&1 || true
    rm -rf -- "$tmp"
}
trap cleanup EXIT

unset PGHOST PGPORT PGUSER PGDATABASE PGPASSWORD PGPASSFILE PGCB_CONNINFO PGHOSTADDR PGSERVICE
env_line=$("$root/scripts/pgserver.sh" start "$srv" 2>"$tmp/pgserver.log") \
    || { cat "$tmp/pgserver.log" >&2; echo "$prog: could not start the server" >&2; exit 1; }
eval "$env_line"
export PGHOST PGPORT PGUSER PGDATABASE

bindir=${PG_BINDIR:-$(find /usr/lib/postgresql -maxdepth 2 -name bin -type d | sort -V | tail -n 1)}
as_owner() {
    if ((EUID == 0)); then runuser -u postgres -- "$@"; else "$@"; fi
}
pg_ctl() { as_owner "$bindir/pg_ctl" -D "$srv/data" "$@"; }

{
    cat <<INI
[bench]
time_ms = 900
queries = 30
warmup_ms = 50
batch_timeout_ms = 5000
[server]
setup = $root/sql/benchmark_rows.sql
[driver.libpq_sync]
path = $build/drivers/libpq_sync.so
[driver.libpq_pipeline]
path = $build/drivers/libpq_pipeline.so
[driver.rawwire]
path = $build/drivers/rawwire.so
INI
    for q in 1 2 3 4 5; do
        printf '[query.q%s]\nsql = SELECT id, int_value, string_value, null_value, bool_value FROM benchmark_rows ORDER BY id LIMIT 1\nrows = 1\n' "$q"
    done
    printf '[suite.s]\ndepth = 5\n'
} >"$tmp/f.ini"

"$build/runner" -c "$tmp/f.ini" -o "$tmp/r.json" >"$tmp/out" 2>"$tmp/err" &
runner_pid=$!
# Wait for the first group's table, then pull the plug.
for _ in $(seq 1 600); do
    grep -q '^s / q1 ' "$tmp/out" && break
    kill -0 "$runner_pid" 2>/dev/null || break
    sleep 0.05
done
grep -q '^s / q1 ' "$tmp/out" || { cat "$tmp/out" "$tmp/err" >&2; echo "$prog: the first group never finished" >&2; exit 1; }
sleep 0.3 # inside group 2
pg_ctl -m immediate -w -s stop
sleep 0.5
pg_ctl -l "$srv/log/postgresql.log" -w -t 60 -s start
status=0
wait "$runner_pid" || status=$?
runner_pid=""

failures=0
check() { # check DESCRIPTION COMMAND...
    local what=$1; shift
    if "$@"; then printf '  ok   %s\n' "$what"; else printf '  FAIL %s\n' "$what" >&2; failures=$((failures + 1)); fi
}
json() { jq -r "$1" "$tmp/r.json"; }
check "runner exit status 2 (was $status)" test "$status" -eq 2
check "result file written" test -s "$tmp/r.json"
check "result complete" test "$(json .complete)" = true
check "5 groups" test "$(json '.groups | length')" -eq 5
check "group q1 measured by every driver" test "$(json '[.groups[0].results[].status] | unique | join(",")')" = ok
check "group q2 failed for every driver" test "$(json '[.groups[1].results[].status] | unique | join(",")')" = failed
check "group q2's errors are the drivers' own messages" \
    test "$(json '[.groups[1].results[].error | select(. != null and length > 10)] | length')" -eq 3
check "the last group measured by every driver again" test "$(json '[.groups[4].results[].status] | unique | join(",")')" = ok
check "every driver reports a status in every group" \
    test "$(json '[.groups[].results[].status | select(. == "ok" or . == "failed")] | length')" -eq 15
if ((failures)); then
    echo "--- stdout"; cat "$tmp/out"; echo "--- stderr"; cat "$tmp/err"; echo "--- statuses"
    jq -c '.groups[] | [.query, [.results[] | [.driver, .status, .error]]]' "$tmp/r.json" || true
    echo "$prog: $failures check(s) failed" >&2
    exit 1
fi
echo "$prog: the server stopped in group 2: it failed, the drivers reconnected, the last group succeeded"
