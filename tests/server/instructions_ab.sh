#!/usr/bin/env bash
# pgcb-test: plain build only: valgrind cannot run a sanitizer build
# The instruction-count A/B (issue 43, docs/instructions.md) end to end
# against the real server, with the PG* variables of tests/run.sh's server:
#           tests/server/instructions_ab.sh BUILD_DIR
# on a short config (sequential LIMIT 1 and LIMIT 500, a wall-time run of 2
# orders x 50 ms, 100 queries per group and side under callgrind):
#   - A/A: libpq_sync twice (--allow-same --instructions): "no change" in
#     every group, exit 0, instructions.json and .md written, the table and
#     its caveat appended to comparison.md;
#   - a planted regression (build/tests/fixtures/libpq_sync_plant.so, 40
#     steps per row through PGCB_PLANT_ITERS_PER_ROW: about +14 % of the
#     instructions at LIMIT 500, a hundred times the threshold) reads "more
#     instructions" at LIMIT 500; the default exit is the wall-time gate's
#     (0: no --fail-above), --fail-instructions 1 makes it 3;
#   - a wall-time gate that fails (check_crash faults in the pipelined group)
#     keeps its exit 3 with --instructions, the counts' own verdicts beside;
#   - --instructions with --client: refused in one line, exit 2, nothing run.
# Exit status 1 at the first failed check.
set -uo pipefail
(($# == 1)) || { printf 'usage: %s BUILD_DIR\n' "$0" >&2; exit 2; }
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd "$1" && pwd)
ab=$root/scripts/ab.sh
tmp=$(mktemp -d /tmp/pgcb-instr-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
n=0
fail() { printf 'FAIL %s\n' "$*"; exit 1; }
pass() { n=$((n + 1)); printf 'ok %d %s\n' "$n" "$*"; }
command -v valgrind >/dev/null || fail "valgrind is not installed (scripts/install-deps.sh installs it)"

# short.ini ROWS...: a wall-time run of 2 orders x 50 ms, one sequential
# suite over the benchmark query at each LIMIT ROWS.
short_ini() {
    local r
    printf '[bench]\ntime_ms = 50\nqueries = 2\nwarmup_ms = 0\norders = 2\n'
    printf '[server]\nsetup = %s/sql/benchmark_rows.sql\n' "$root"
    for r; do
        printf '[query.limit_%s]\nsql = SELECT * FROM benchmark_rows ORDER BY id LIMIT %s\nrows = %s\n' "$r" "$r" "$r"
    done
    printf '[suite.sequential]\ndepth = 1\nqueries =%s\n' "$(printf ' limit_%s' "$@")"
}
short_ini 1 500 > "$tmp/ab.ini"
short_ini 500 > "$tmp/ab500.ini" # the plant's runs: LIMIT 500 alone, half the valgrind runs

# run NAME CONFIG EXPECTED_EXIT ARGS...: ab.sh into $tmp/NAME, its exit checked.
run() {
    local name=$1 config=$2 want=$3
    shift 3
    "$ab" --build-dir "$build" --config "$config" --out "$tmp/$name" --instructions-queries 100 "$@" \
        > "$tmp/$name.out" 2> "$tmp/$name.err"
    local rc=$?
    [ "$rc" = "$want" ] || { cat "$tmp/$name.out" "$tmp/$name.err"; fail "$name: exit $rc, expected $want"; }
}
# verdicts NAME: "QUERY:VERDICT ..." of NAME's instructions.json.
verdicts() {
    /usr/bin/python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
print(" ".join(g["query"] + ":" + g["verdict"].replace(" ", "_") for g in j["groups"]))' \
        "$tmp/$1/instructions.json"
}

so=$build/drivers/libpq_sync.so
plant=$build/tests/fixtures/libpq_sync_plant.so
[ -f "$plant" ] || fail "$plant: not built (make tests builds the fixtures)"

run aa "$tmp/ab.ini" 0 --allow-same --instructions --driver "$so" "$so"
v=$(verdicts aa)
[ "$v" = "limit_1:no_change limit_500:no_change" ] || { cat "$tmp/aa.out" "$tmp/aa.err"; fail "aa: '$v', expected no change in both groups"; }
grep -q '^#### Instructions per query' "$tmp/aa/comparison.md" || fail "aa: no instruction section in comparison.md"
grep -q 'do not see the kernel' "$tmp/aa/comparison.md" || fail "aa: no caveat in comparison.md"
[ -s "$tmp/aa/instructions.md" ] || fail "aa: no instructions.md"
pass "A/A: no change in both groups, exit 0, the table and its caveat in comparison.md ($(
    /usr/bin/python3 -c 'import json,sys; print(", ".join("%s %+.4f%%" % (g["query"], g["change_pct"]) for g in json.load(open(sys.argv[1]))["groups"]))' "$tmp/aa/instructions.json"))"

export PGCB_PLANT_ITERS_PER_ROW=40
run plant "$tmp/ab500.ini" 0 --instructions --driver "$so" "$plant"
v=$(verdicts plant)
[ "$v" = "limit_500:more_instructions" ] || { cat "$tmp/plant.out"; fail "plant: '$v', expected more instructions at LIMIT 500"; }
pass "planted regression: more instructions at LIMIT 500, exit 0 without --fail-instructions"
run plant_gate "$tmp/ab500.ini" 3 --fail-instructions 1 --driver "$so" "$plant"
grep -q 'Instructions gate: FAILED' "$tmp/plant_gate/comparison.md" || fail "plant_gate: no 'Instructions gate: FAILED' in comparison.md"
pass "planted regression: --fail-instructions 1 fails (exit 3)"
unset PGCB_PLANT_ITERS_PER_ROW

# The wall-time gate failed (a side crashes in the pipelined group): the
# counts cannot pass the run, whatever they say of the other groups.
{ short_ini 1; printf '[suite.pipelined]\ndepth = 10\nqueries = limit_1\n'; } > "$tmp/crash.ini"
run crash "$tmp/crash.ini" 3 --fail-above 2 --instructions \
    --driver "$build/tests/fixtures/check_ok.so" "$build/tests/fixtures/check_crash.so"
v=$(verdicts crash)
# (check_crash is another build than check_ok: its sequential count differs.)
case $v in
*" limit_1:failed") ;;
*) cat "$tmp/crash.out" "$tmp/crash.err"; fail "crash: '$v', expected the pipelined group failed" ;;
esac
pass "a side crashing in a group: the wall-time gate's exit 3 kept, that group failed in the counts too ($v)"

run client "$tmp/ab.ini" 2 --instructions --client pg "$tmp/x" "$tmp/y"
[ "$(wc -l < "$tmp/client.err")" = 1 ] || { cat "$tmp/client.err"; fail "client: not one line"; }
grep -q 'not deterministic' "$tmp/client.err" || { cat "$tmp/client.err"; fail "client: no reason given"; }
[ ! -e "$tmp/client/result.json" ] || fail "client: something ran"
pass "--instructions with --client: refused in one line, exit 2"
printf '%d checks passed\n' "$n"
