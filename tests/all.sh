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
# their output kept whole per target: -Otarget); the tests themselves one
# at a time, since they time things.
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
    printf 'all: step "%s" took %d s\n' "$name" $((SECONDS - start))
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

quick=0
if [[ ${1:-} == --quick ]]; then quick=1; shift; fi

step "build" make --no-print-directory -j"$jobs" tests
if ((quick)); then
    step "tests (unit, server smoke)" tests/run.sh build check
else
    step "tests (plain build)" tests/run.sh build
    step "build (sanitizers)" make --no-print-directory -j"$jobs" SAN=1 tests
    step "tests (AddressSanitizer + UBSan)" tests/run.sh build-san
fi
for target in "$@"; do
    step "$target" make --no-print-directory -j"$jobs" -Otarget "$target"
done

if ((${#steps_failed[@]})); then
    printf 'all: failed steps: %s\n' "$(IFS=,; echo "${steps_failed[*]}")"
fi
printf 'all: %d passed, %d failed\n' "$passed" "$failed"
((failed == 0 && ${#steps_failed[@]} == 0))
