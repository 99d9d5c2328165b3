#!/usr/bin/env bash
# pgcb-test: plain build only: the profile scripts are the same in every build
# fold.py on a real perf recording of a PostgreSQL backend running a query:
#           tests/server/profile_fold_backend.sh BUILD_DIR
# with tests/run.sh's server (its PG* variables): pgbench (extended protocol,
# prepared) runs SELECT sum(i) FROM generate_series(1, 20000) i for 4 s on one
# connection tagged with an application_name; its backend (found by that name
# in pg_stat_activity) is recorded for 1.5 s with `perf record -e cpu-clock
# --call-graph dwarf -p PID`, folded as the runner does, and checked:
# `postgres` is top.tsv's main category, PortalRun is in the stacks (Debian's
# postgres is stripped to its exported symbols: PortalRun resolves, the
# static exec_execute_message does not), every stack starts with the comm
# postgres, and the counts add up to the total. Needs perf (with libpython),
# psql and pgbench: missing is a failure.
set -euo pipefail
prog=profile_fold_backend
(($# == 1)) || { printf 'usage: %s BUILD_DIR\n' "$0" >&2; exit 2; }
build=$(cd -- "$1" && pwd)
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/profile/lib.sh
. "$root/tests/profile/lib.sh"
need_perf
for c in psql pgbench; do command -v "$c" >/dev/null 2>&1 || fail "$c not found (postgresql-client)"; done
[[ -n ${PGHOST:-} || -n ${PGPORT:-} ]] || fail "no PG* environment: run it under tests/run.sh BUILD server"
[[ -f $build/profile/fold.py ]] || fail "$build/profile/fold.py not built (make)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pgcb-prof-be.XXXXXX")
bench=""
# shellcheck disable=SC2317  # invoked by the trap below
cleanup() {
    if [[ -n $bench ]]; then kill "$bench" 2>/dev/null || true; wait "$bench" 2>/dev/null || true; fi
    rm -rf -- "$tmp"
}
trap cleanup EXIT
app=pgcb_profile_test_$$
printf 'SELECT sum(i) FROM generate_series(1, 20000) i;\n' > "$tmp/q.sql"
PGAPPNAME=$app pgbench -n -M prepared -c 1 -T 4 -f "$tmp/q.sql" > "$tmp/pgbench.log" 2>&1 &
bench=$!
pid=""
for _ in $(seq 50); do
    # (pgbench's first connection, which runs no query, ends at once: wait for the one running ours)
    pid=$(psql -XAtqc "SELECT pid FROM pg_stat_activity WHERE application_name = '$app' AND query LIKE '%generate_series%'" 2>/dev/null || true)
    [[ -n $pid ]] && break
    sleep 0.1
done
[[ $pid =~ ^[0-9]+$ ]] || fail "no backend with application_name $app within 5 s: $(cat "$tmp/pgbench.log")"
perf record -q --no-buildid-cache -e cpu-clock -F 999 --call-graph dwarf -p "$pid" -o "$tmp/be.perf" -- sleep 1.5 \
    || fail "perf record -p $pid failed"
wait "$bench" || fail "pgbench failed: $(cat "$tmp/pgbench.log")"
bench=""
fold "$tmp/be.perf" "$tmp/be"
total=$(check_sums "$tmp/be")
((total >= 100)) || fail "only $total samples of the backend in 1.5 s"
main=$(awk -F'\t' '$1 == "category" { print $2 "\t" $3; exit }' "$tmp/be.top.tsv")
[[ ${main%%$'\t'*} == postgres ]] || fail "the main category is '${main%%$'\t'*}', not postgres: $(cat "$tmp/be.top.tsv")"
ok "postgres is the main category: ${main##*$'\t'} of $total self samples"
portal=$(awk '/;PortalRun;/ { s += $NF } END { print s + 0 }' "$tmp/be.folded")
((portal * 2 > total)) || fail "PortalRun in only $portal of $total samples' stacks: $(head -n 3 "$tmp/be.folded")"
ok "PortalRun in the stacks of $portal of $total samples"
grep -v '^postgres;' "$tmp/be.folded" && fail "a stack does not start with the comm postgres"
exit 0
