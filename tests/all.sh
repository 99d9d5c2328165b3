#!/usr/bin/env bash
# The whole suite, as `make test` runs it:  tests/all.sh [EXTRA_TARGET...]
# The quick one, as `make check` runs it:    tests/all.sh --quick [EXTRA_TARGET...]
# (--quick: the plain build and tests/run.sh build check -- the unit tests and
# a short real-server run -- then the extra targets; no sanitizer build.)
#
# 1. the plain build's unit and server tests (tests/run.sh build),
# 2. the same built with AddressSanitizer + UBSan (tests/run.sh build-san),
# 3. each extra make target (lint, fuzzing ...: the mk/*.mk fragments).
# Builds and extra targets run with make -j(CPUs) (the extra targets with
# their output kept whole per target: -Otarget). Within a pass the tests
# run one at a time; the two passes (1 and 2) run at the same time, each
# against its own throw-away server (tests/run.sh starts one per pass), with
# their outputs printed whole one after the other when both are done: the
# tests mostly wait (time budgets, timeouts, child processes), so the two
# passes take little more than the longer one. PGCB_TEST_SERIAL=1 runs them
# one after the other, output live.
# Every step runs even if an earlier one failed. Each step's own summary
# ("N passed, N failed") is added up; a step without one counts as one test.
# The last line is the total, "all: N passed, N failed"; exit 1 if anything
# failed.
set -uo pipefail

root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
cd -- "$root" || exit 1
log=$(mktemp /tmp/pgcb-all.XXXXXX)
trap 'rm -f -- "$log"' EXIT
jobs=$(nproc 2>/dev/null || echo 1)
passed=0
failed=0
steps_failed=()

# step NAME COMMAND...: run it with its output visible, then add its counts.
step() {
    local name=$1 status=0 p f line start=$SECONDS
    shift
    "$@" 2>&1 | tee "$log" || status=$?
    printf 'all: step "%s" took %d s%s\n' "$name" "${step_took:-$((SECONDS - start))}" "${step_took:+ (beside the other pass)}"
    line=$(grep -E '^([A-Za-z-]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1 || true)
    if [[ -n $line ]]; then
        p=$(sed -E 's/^([A-Za-z-]+: )?([0-9]+) passed, ([0-9]+) failed.*/\2/' <<<"$line")
        f=$(sed -E 's/^([A-Za-z-]+: )?([0-9]+) passed, ([0-9]+) failed.*/\3/' <<<"$line")
    elif ((status == 0)); then
        p=1 f=0
    else
        p=0 f=1
    fi
    if ((status != 0 && f == 0)); then f=1; fi # it failed without saying so
    passed=$((passed + p))
    failed=$((failed + f))
    if ((status != 0 || f > 0)); then steps_failed+=("$name"); fi
}

# step_pair NAME1 "CMD1" NAME2 "CMD2": two steps at once, each with its
# output kept in its own log and printed whole when both are done, then
# counted as step() counts.
step_pair() {
    local n1=$1 c1=$2 n2=$3 c2=$4 l1 l2 s1=0 s2=0 start=$SECONDS p1 p2
    l1=$(mktemp /tmp/pgcb-all.XXXXXX) && l2=$(mktemp /tmp/pgcb-all.XXXXXX) || exit 1
    printf 'all: steps "%s" and "%s" run at the same time; their outputs follow when both are done\n' "$n1" "$n2"
    # Each writes its own end time (seconds since the pair started).
    (bash -c "$c1" >"$l1" 2>&1; r=$?; echo $((SECONDS - start)) >"$l1.end"; exit $r) &
    p1=$!
    (bash -c "$c2" >"$l2" 2>&1; r=$?; echo $((SECONDS - start)) >"$l2.end"; exit $r) &
    p2=$!
    wait "$p1" || s1=$?
    wait "$p2" || s2=$?
    local t1 t2
    t1=$(cat -- "$l1.end" 2>/dev/null || echo "?")
    t2=$(cat -- "$l2.end" 2>/dev/null || echo "?")
    # Each replayed through step() for its counts (its status kept).
    step_took=$t1 step "$n1" replay "$l1" "$s1"
    step_took=$t2 step "$n2" replay "$l2" "$s2"
    rm -f -- "$l1" "$l2" "$l1.end" "$l2.end"
    printf 'all: both passes took %d s\n' $((SECONDS - start))
}
# replay LOG STATUS: print LOG, exit with STATUS.
replay() { cat -- "$1"; return "$2"; }
quick=0
if [[ ${1:-} == --quick ]]; then quick=1; shift; fi

step "build" make --no-print-directory -j"$jobs" tests
if ((quick)); then
    step "tests (unit, server smoke)" tests/run.sh build check
else
    step "build (sanitizers)" make --no-print-directory -j"$jobs" SAN=1 tests
    if [[ ${PGCB_TEST_SERIAL:-0} == 1 ]]; then
        step "tests (plain build)" tests/run.sh build
        step "tests (AddressSanitizer + UBSan)" tests/run.sh build-san
    else
        step_pair "tests (plain build)" "tests/run.sh build" \
                  "tests (AddressSanitizer + UBSan)" "tests/run.sh build-san"
    fi
fi
for target in "$@"; do
    step "$target" make --no-print-directory -j"$jobs" -Otarget "$target"
done

if ((${#steps_failed[@]})); then
    printf 'all: failed steps: %s\n' "$(IFS=,; echo "${steps_failed[*]}")"
fi
printf 'all: %d passed, %d failed\n' "$passed" "$failed"
((failed == 0 && ${#steps_failed[@]} == 0))
