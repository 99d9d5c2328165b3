#!/usr/bin/env bash
# The whole suite, as `make test` runs it:  tests/all.sh [EXTRA_TARGET...]
# The quick one, as `make check` runs it:    tests/all.sh --quick [EXTRA_TARGET...]
# (--quick: the plain build without the Rust adapter (make QUICK=1), then
# tests/run.sh build check -- the unit tests and a short real-server run --
# beside the extra targets; no sanitizer build.)
#
# 1. the plain build (make tests: the C code, the adapters),
# 2. two chains at the same time, each against its own throw-away server
#    (tests/run.sh starts one per pass):
#    - the plain build's unit and server tests (tests/run.sh build);
#    - the build with AddressSanitizer + UBSan, its unit and server tests
#      (tests/run.sh build-san), then the extra make targets (lint, fuzzing:
#      the mk/*.mk fragments add them),
#    with every step's output printed whole, chain by chain, when both are
#    done: the tests mostly wait (time budgets, timeouts, child processes),
#    so the two chains take little more than the longer one.
#    PGCB_TEST_SERIAL=1 runs every step one after the other, output live.
# Builds and extra targets run with make -j(CPUs) (the extra targets with
# their output kept whole per target: -Otarget); within a pass the server
# tests run in PGCB_TEST_JOBS lanes (default 2; tests/run.sh: each lane its
# own server, the longest tests first), one at a time with
# PGCB_TEST_SERIAL=1.
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
    printf 'all: step "%s" took %d s%s\n' "$name" "${step_took:-$((SECONDS - start))}" "${step_end:+ (ended ${step_end} s after the chains started)}"
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

# chains "NAME CMD..." ...: run two chains of steps at the same time, each
# chain's steps one after the other, every step's output kept in its own log
# and printed whole when both chains are done, then counted as step() counts
# (with its own duration, and when it ended). A chain is given as
# NAME1 CMD1 NAME2 CMD2 ... -- ':' separates the two chains.
chains() {
    local dir start=$SECONDS c=0 k name
    dir=$(mktemp -d /tmp/pgcb-all.XXXXXX) || exit 1
    local -a pids=() chain=()
    printf 'all: two chains of steps run at the same time; their outputs follow when both are done\n'
    run_chain() { # DIR C NAME CMD ...
        local d=$1 ci=$2 i=0 r t0 f
        shift 2
        while (($# >= 2)); do
            t0=$SECONDS
            f=$d/$ci.$(printf %02d "$i") # sorts in step order
            bash -c "$2" >"$f.log" 2>&1
            r=$?
            printf '%s\t%s\t%s\t%s\n' "$1" "$r" $((SECONDS - t0)) $((SECONDS - start)) >"$f.meta"
            i=$((i + 1))
            shift 2
        done
    }
    for arg in "$@" :; do
        if [[ $arg == : ]]; then
            run_chain "$dir" "$c" "${chain[@]}" &
            pids+=($!)
            chain=()
            c=$((c + 1))
        else
            chain+=("$arg")
        fi
    done
    wait "${pids[@]}"
    local meta rc t end
    for ((k = 0; k < c; k++)); do
        for meta in "$dir/$k".*.meta; do
            [[ -f $meta ]] || continue # an empty chain
            IFS=$'\t' read -r name rc t end <"$meta"
            step_took=$t step_end=$end step "$name" replay "${meta%.meta}.log" "$rc"
        done
    done
    rm -rf -- "$dir"
    printf 'all: the two chains took %d s\n' $((SECONDS - start))
}
# replay LOG STATUS: print LOG, exit with STATUS.
replay() { cat -- "$1"; return "$2"; }
quick=0
if [[ ${1:-} == --quick ]]; then quick=1; shift; fi
if [[ ${PGCB_TEST_SERIAL:-0} == 1 ]]; then
    export PGCB_TEST_JOBS=1
else
    export PGCB_TEST_JOBS=${PGCB_TEST_JOBS:-2}
fi

if ((quick)); then
    step "build" make --no-print-directory -j"$jobs" QUICK=1 tests
else
    step "build" make --no-print-directory -j"$jobs" tests
fi
extra=()
for target in "$@"; do
    extra+=("$target" "make --no-print-directory -j$jobs -Otarget $target")
done
if ((quick)); then
    # The tests in one chain, the extra targets (lint) in the other.
    chains "tests (unit, server smoke)" "tests/run.sh build check" : "${extra[@]}"
elif [[ ${PGCB_TEST_SERIAL:-0} == 1 ]]; then
    step "build (sanitizers)" make --no-print-directory -j"$jobs" SAN=1 tests
    step "tests (plain build)" tests/run.sh build
    step "tests (AddressSanitizer + UBSan)" tests/run.sh build-san
    for target in "$@"; do
        step "$target" make --no-print-directory -j"$jobs" -Otarget "$target"
    done
else
    # The plain build's tests in one chain; the sanitizer build, its tests
    # and the extra targets in the other: the tests mostly wait (time
    # budgets, timeouts, child processes), so the other chain's compiling
    # and fuzzing use what they leave of the CPUs.
    # Every extra target (lint, fuzzing) follows the sanitizer tests: the
    # plain build's tests are the longer pass (the plain-build-only server
    # scripts: valgrind, the adapters' streams, the install). Measured on
    # 2 CPUs (AMD EPYC, 2026-12-07): plain tests 582 s; sanitizer build 88 s
    # + its tests 386 s + fuzzing 78 s + lint 77 s = 629 s; with lint after
    # the plain tests instead, the chains took 659 s.
    chains "tests (plain build)" "tests/run.sh build" : \
           "build (sanitizers)" "make --no-print-directory -j$jobs SAN=1 tests" \
           "tests (AddressSanitizer + UBSan)" "tests/run.sh build-san" "${extra[@]}"
fi

if ((${#steps_failed[@]})); then
    printf 'all: failed steps: %s\n' "$(IFS=,; echo "${steps_failed[*]}")"
fi
printf 'all: %d passed, %d failed\n' "$passed" "$failed"
((failed == 0 && ${#steps_failed[@]} == 0))
