#!/usr/bin/env bash
# The test driver:  tests/run.sh BUILD_DIR [unit|server|all|check]   (default: all)
#
# unit:   runs BUILD_DIR/tests/test_X for every tests/unit/test_X.c.
# check:  the unit tests, then the server tests of SMOKE below only (a short
#         real-server run for `make check`: the drivers against the server,
#         the runner end to end, the bridge, the wake-ups), same server set-up.
# server: starts a throw-away PostgreSQL (scripts/pgserver.sh; pinned to the
#         last CPU when there are two or more), exports its PG* variables and
#         PGCB_BUILD=BUILD_DIR (absolute), then runs BUILD_DIR/tests/test_X for
#         every tests/server/test_X.c and every executable tests/server/*.sh
#         (with BUILD_DIR as $1), and stops the server. A server that does not
#         start is a failure, never a skip.
# Each test runs in its own process under `timeout` (PGCB_TEST_TIMEOUT
# seconds, default 300), from the top of the checkout, with its output
# visible. One line per test: "PASS name (1.23s)" or "FAIL name (1.23s): why"
# (or "SKIP name: why" for a plain-build-only script in a sanitizer build);
# the last line is "N passed, N failed". Exit status 1 if anything failed.
set -euo pipefail

prog=run.sh
die() { printf '%s: %s\n' "$prog" "$*" >&2; exit 1; }
usage() { printf 'usage: %s BUILD_DIR [unit|server|all|check]\n' "$0" >&2; exit 2; }

# The server tests of `check` (tests/server/NAME.c or NAME.sh): one or two
# per concern, a couple of minutes in all on 2 CPUs.
SMOKE=(test_libpq_sync test_rawwire test_libpq_pipeline test_runner_e2e test_bridge test_wakeups
       test_backend_e2e test_load test_profile_e2e)

(($# >= 1 && $# <= 2)) || usage
build=$1
mode=${2:-all}
case $mode in unit|server|all|check) ;; *) die "unknown category '$mode' (expected unit, server, all or check)" ;; esac
[[ -d $build ]] || die "build directory '$build' does not exist (run make tests first)"
build=$(cd -- "$build" && pwd)
timeout_s=${PGCB_TEST_TIMEOUT:-300}
[[ $timeout_s =~ ^[1-9][0-9]*$ ]] || die "PGCB_TEST_TIMEOUT='$timeout_s' is not a number of seconds"

root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
cd -- "$root"
pgserver=$root/scripts/pgserver.sh

# `check` (make check) does not build the Rust adapter (a release build of
# tokio-postgres and tokio: about 2 minutes on 2 CPUs): the tests that
# enumerate the shipped clients skip its clients, saying so
# (drvtest_adapter_skipped). Every other mode tests every adapter.
if [[ $mode == check ]]; then
    export PGCB_TEST_SKIP_ADAPTERS=rust
else
    unset PGCB_TEST_SKIP_ADAPTERS
fi
# Tests talk to the server this script starts, never to one named by the caller.
unset PGCB_CONNINFO PGHOSTADDR PGSERVICE PGHOST PGPORT PGDATABASE PGUSER PGCB_SERVER_CPUS
export PGCB_BUILD=$build

passed=0
failed=0
current_pid=""
srvdir=""

now_us() { printf '%s' "${EPOCHREALTIME//[^0-9]/}"; }

# children_cpu_ms: the CPU time (user + system) of every child this shell has
# waited for, and of their descendants that they waited for, in ms (bash's
# `times`, second line): around a test, the CPU it and its adapters, nodes,
# JVMs ... spent (not the server's backends, which are the postmaster's).
children_cpu_ms() {
    local line m1 s1 m2 s2
    line=$(times | sed -n 2p)
    [[ $line =~ ^([0-9]+)m([0-9.]+)s\ ([0-9]+)m([0-9.]+)s$ ]] || { echo 0; return; }
    m1=${BASH_REMATCH[1]} s1=${BASH_REMATCH[2]} m2=${BASH_REMATCH[3]} s2=${BASH_REMATCH[4]}
    echo $(((m1 + m2) * 60000 + 10#${s1%.*} * 1000 + 10#${s1#*.} + 10#${s2%.*} * 1000 + 10#${s2#*.}))
}
cpu_before=0

# result NAME STATUS START_US [WHY]: the test's line, with its wall time and
# the CPU its processes spent (since cpu_before).
result() {
    local name=$1 status=$2 start=$3 why=${4:-} us cpu
    us=$(($(now_us) - start))
    cpu=$(($(children_cpu_ms) - cpu_before))
    local secs
    secs=$(printf '%d.%02d' $((us / 1000000)) $((us % 1000000 / 10000)))
    cpu=$(printf '%d.%02d' $((cpu / 1000)) $((cpu % 1000 / 10)))
    if [[ $status == PASS ]]; then
        passed=$((passed + 1))
        printf 'PASS %s (%ss, CPU %ss)\n' "$name" "$secs" "$cpu"
    else
        failed=$((failed + 1))
        printf 'FAIL %s (%ss, CPU %ss)%s\n' "$name" "$secs" "$cpu" "${why:+: $why}"
    fi
}

# run_test NAME COMMAND...: run one test in its own process, with a timeout.
# It runs in the background so that INT/TERM reach our trap at once.
run_test() {
    local name=$1; shift
    local start rc=0
    start=$(now_us)
    cpu_before=$(children_cpu_ms)
    timeout -k 10 "$timeout_s" "$@" &
    current_pid=$!
    wait "$current_pid" || rc=$?
    current_pid=""
    if ((rc == 0)); then
        result "$name" PASS "$start"
    elif ((rc == 124 || rc == 137)); then
        result "$name" FAIL "$start" "timed out after ${timeout_s}s"
    elif ((rc > 128)); then
        result "$name" FAIL "$start" "killed by SIG$(kill -l $((rc - 128)) 2>/dev/null || echo $((rc - 128)))"
    else
        result "$name" FAIL "$start" "exit status $rc"
    fi
}

stop_server() {
    if [[ -n $srvdir ]]; then
        "$pgserver" stop "$srvdir" || printf '%s: could not stop the test server in %s\n' "$prog" "$srvdir" >&2
        srvdir=""
    fi
}

# shellcheck disable=SC2317  # invoked by the traps below
on_exit() {
    local rc=$?
    trap - EXIT INT TERM
    if [[ -n $current_pid ]]; then
        kill -TERM "$current_pid" 2>/dev/null || true
        wait "$current_pid" 2>/dev/null || true
    fi
    stop_server
    exit "$rc"
}
trap on_exit EXIT
trap 'printf "%s: interrupted\n" "$prog" >&2; exit 130' INT
trap 'printf "%s: terminated\n" "$prog" >&2; exit 143' TERM

# CPUs we may run on (online and in our affinity mask), last one printed.
last_cpu() {
    local list part last=""
    local -a parts
    list=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status 2>/dev/null || true)
    [[ -n $list ]] || list=$(cat /sys/devices/system/cpu/online 2>/dev/null || echo 0)
    IFS=, read -ra parts <<<"$list"
    for part in "${parts[@]}"; do last=${part#*-}; done
    printf '%s\n' "${last:-0}"
}

shopt -s nullglob

# A sanitizer build (make SAN=1): its runner has AddressSanitizer's runtime.
# Server scripts whose header says "# pgcb-test: plain build only: WHY" test
# what no build changes (scripts/pgserver.sh, the install rules) or cannot
# run a sanitizer build (valgrind): they run once, with the plain build, and
# print a SKIP line with WHY here.
san_build=0
# (grep without -q: with pipefail, -q exiting early would fail nm with SIGPIPE)
if nm "$build/runner" 2>/dev/null | grep __asan_init >/dev/null; then san_build=1; fi

# run_binaries SRC...: run BUILD_DIR/tests/test_X for each test_X.c given (a
# FAIL for each one not built).
run_binaries() {
    local src name
    for src; do
        name=$(basename -- "$src" .c)
        if [[ ! -x $build/tests/$name ]]; then
            result "$name" FAIL "$(now_us)" "$build/tests/$name not built"
            continue
        fi
        run_test "$name" "$build/tests/$name"
    done
}

run_unit() {
    local srcs=(tests/unit/test_*.c)
    if ((${#srcs[@]} == 0)); then
        printf 'no unit tests (tests/unit/test_*.c)\n'
        return 0
    fi
    run_binaries "${srcs[@]}"
}

run_server() {
    local srcs=(tests/server/test_*.c) scripts=() s
    if [[ $mode == check ]]; then
        srcs=()
        for s in "${SMOKE[@]}"; do
            [[ -f tests/server/$s.c ]] || die "SMOKE names $s, which is not tests/server/$s.c"
            srcs+=("tests/server/$s.c")
        done
    fi
    for s in tests/server/*.sh; do
        [[ $mode == check ]] && break
        if [[ -x $s ]]; then
            scripts+=("$s")
        else
            printf '%s: note: %s is not executable: not run as a test\n' "$prog" "$s" >&2
        fi
    done
    if ((${#srcs[@]} + ${#scripts[@]} == 0)); then
        printf 'no server tests (tests/server/test_*.c, tests/server/*.sh)\n'
        return 0
    fi

    local ncpu cpus_arg=() start env_line
    ncpu=$(nproc)
    if ((ncpu >= 2)); then cpus_arg=(--cpus "$(last_cpu)"); fi
    srvdir=$(mktemp -d "${TMPDIR:-/tmp}/pgcb-test.XXXXXX") || die "mktemp -d failed"
    start=$(now_us)
    if ! env_line=$("$pgserver" start "$srvdir" "${cpus_arg[@]}"); then
        result pgserver-start FAIL "$start" "could not start the test server: server tests not run"
        for s in "${srcs[@]}"; do
            result "$(basename -- "$s" .c)" FAIL "$(now_us)" "not run: no server"
        done
        for s in "${scripts[@]}"; do
            result "${s#tests/}" FAIL "$(now_us)" "not run: no server"
        done
        stop_server
        return 0
    fi
    eval "$env_line"
    printf '%s: test server: socket %s port %s, CPUs %s\n' "$prog" "$PGHOST" "$PGPORT" "${PGCB_SERVER_CPUS:-not pinned}" >&2

    run_binaries "${srcs[@]}"
    for s in "${scripts[@]}"; do
        if ((san_build)) && grep -q '^# pgcb-test: plain build only' "$s"; then
            printf 'SKIP %s: plain build only (%s): the plain build'"'"'s run covers it\n' \
                "${s#tests/}" "$(sed -n 's/^# pgcb-test: plain build only: //p' "$s" | head -n 1)"
            continue
        fi
        run_test "${s#tests/}" "$s" "$build"
    done
    stop_server
    unset PGHOST PGPORT PGUSER PGDATABASE PGCB_SERVER_CPUS
}

if [[ $mode == unit || $mode == all || $mode == check ]]; then run_unit; fi
if [[ $mode == server || $mode == all || $mode == check ]]; then run_server; fi

printf '%d passed, %d failed\n' "$passed" "$failed"
((failed == 0)) || exit 1
