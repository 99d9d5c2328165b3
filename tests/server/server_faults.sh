#!/usr/bin/env bash
# The server goes away in the middle of a run and comes back:
#   tests/server/server_faults.sh BUILD_DIR
# Our own throw-away cluster (scripts/pgserver.sh). The runner measures five
# groups with three client drivers, once in a depth suite and once in a
# concurrency suite (pools); as soon as the first group's table is
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

# One scenario: SUITE_KEYS (the suite's keys: a depth, or a concurrency
# suite's), NAME (for messages), CLIENTS (the drivers that measure: in a
# concurrency suite libpq_sync is skipped, having no pool).
failures=0
scenario() {
    local name=$1 keys=$2 clients=$3
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
        printf '[suite.s]\n%s\n' "$keys"
    } >"$tmp/f.ini"

    "$build/runner" -c "$tmp/f.ini" -o "$tmp/r.json" >"$tmp/out" 2>"$tmp/err" &
    runner_pid=$!
    # Wait for the first group's table, then pull the plug.
    for _ in $(seq 1 600); do
        grep -q '^s / q1 ' "$tmp/out" && break
        kill -0 "$runner_pid" 2>/dev/null || break
        sleep 0.05
    done
    grep -q '^s / q1 ' "$tmp/out" || { cat "$tmp/out" "$tmp/err" >&2; echo "$prog: $name: the first group never finished" >&2; exit 1; }
    sleep 0.3 # inside group 2
    pg_ctl -m immediate -w -s stop
    sleep 0.5
    pg_ctl -l "$srv/log/postgresql.log" -w -t 60 -s start
    status=0
    wait "$runner_pid" || status=$?
    runner_pid=""

    local before=$failures skipped=$((3 - clients))
    check() { # check DESCRIPTION COMMAND...
        local what=$1; shift
        if "$@"; then printf '  ok   %s: %s\n' "$name" "$what"; else printf '  FAIL %s: %s\n' "$name" "$what" >&2; failures=$((failures + 1)); fi
    }
    json() { jq -r "$1" "$tmp/r.json"; }
    local measured='[.groups[%d].results[] | select(.status != "skipped") | .status] | unique | join(",")'
    # shellcheck disable=SC2059 # the format is ours
    check "runner exit status 2 (was $status)" test "$status" -eq 2
    check "result file written" test -s "$tmp/r.json"
    check "result complete" test "$(json .complete)" = true
    check "5 groups" test "$(json '.groups | length')" -eq 5
    # shellcheck disable=SC2059
    check "group q1 measured by every client" test "$(json "$(printf "$measured" 0)")" = ok
    # shellcheck disable=SC2059
    check "group q2 failed for every client" test "$(json "$(printf "$measured" 1)")" = failed
    check "group q2's errors are the drivers' own messages" \
        test "$(json '[.groups[1].results[] | select(.status == "failed") | .error | select(. != null and length > 10)] | length')" -eq "$clients"
    # shellcheck disable=SC2059
    check "the last group measured by every client again" test "$(json "$(printf "$measured" 4)")" = ok
    check "every driver reports a status in every group" \
        test "$(json '[.groups[].results[].status | select(. == "ok" or . == "failed" or . == "skipped")] | length')" -eq 15
    check "skipped: $skipped per group" \
        test "$(json '[.groups[].results[].status | select(. == "skipped")] | length')" -eq $((5 * skipped))
    if ((failures > before)); then
        echo "--- stdout"; cat "$tmp/out"; echo "--- stderr"; cat "$tmp/err"; echo "--- statuses"
        jq -c '.groups[] | [.query, [.results[] | [.driver, .status, .error]]]' "$tmp/r.json" || true
    fi
}

scenario "depth 5" "depth = 5" 3
# A concurrency suite: every pool connection dies with the server; the
# pools are opened again for the next group.
scenario "concurrency 4" "concurrency = 4" 2
if ((failures)); then
    echo "$prog: $failures check(s) failed" >&2
    exit 1
fi
echo "$prog: the server stopped in group 2 (a depth suite, then a concurrency suite): it failed, the drivers reconnected, the last group succeeded"
