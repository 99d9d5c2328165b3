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
# seconds, default 600: a guard against a hang, not a bound on speed --
# valgrind_runner.sh takes 144 s alone and passed 300 s beside another
# make test), from the top of the checkout, with its output
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
timeout_s=${PGCB_TEST_TIMEOUT:-600}
test_jobs=${PGCB_TEST_JOBS:-1}
[[ $test_jobs =~ ^[1-9][0-9]*$ ]] || die "PGCB_TEST_JOBS='$test_jobs' is not a number of lanes (1 or more)"
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
# Variables that turn a test's assertions into something else -- golden
# tests that rewrite their files (PGCB_REGEN), the bridge types matrix that
# prints instead of comparing (PGCB_BRTYPES_PRINT) -- would make every such
# test PASS: refused here. Regenerate by running that test binary by hand.
for v in PGCB_REGEN PGCB_BRTYPES_PRINT; do
    [[ -z ${!v+x} ]] || die "$v is set: the tests that read it would rewrite or print instead of checking, and pass; unset it (to regenerate, run that test by hand with it, e.g. PGCB_REGEN=1 $build/tests/test_aggregate_cli)"
done
export PGCB_BUILD=$build

passed=0
failed=0
current_pid=""
srvdir=""
srvdirs=()
lane_pids=()
lanedir=""
self=$$ # the shell whose children's CPU children_cpu_ms reads (a lane's own)

now_us() { printf '%s' "${EPOCHREALTIME//[^0-9]/}"; }

# children_cpu_ms: the CPU time (user + system) of every child this shell has
# waited for, and of their descendants that they waited for, in ms: the
# cutime and cstime of this shell's /proc/PID/stat (read from the shell
# itself: a command substitution's subshell has no children of its own, so
# bash's `times` there says 0). Around a test: the CPU it and its adapters,
# nodes, JVMs ... spent (not the server's backends, which are the
# postmaster's).
clk_tck=$(getconf CLK_TCK 2>/dev/null || echo 100)
children_cpu_ms() {
    local stat
    local -a f
    read -r stat </proc/"$self"/stat || { echo 0; return; }
    read -ra f <<<"${stat##*) }" # f[0] is field 3 (state): cutime is field 16
    echo $(((f[13] + f[14]) * 1000 / clk_tck))
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
    local d
    for d in "${srvdirs[@]}"; do
        "$pgserver" stop "$d" || printf '%s: could not stop the test server in %s\n' "$prog" "$d" >&2
    done
    srvdirs=()
    srvdir=""
}

# shellcheck disable=SC2317  # invoked by the traps below
on_exit() {
    local rc=$?
    trap - EXIT INT TERM
    if [[ -n $current_pid ]]; then
        kill -TERM "$current_pid" 2>/dev/null || true
        wait "$current_pid" 2>/dev/null || true
    fi
    local p
    for p in "${lane_pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "${lane_pids[@]}"; do wait "$p" 2>/dev/null || true; done
    [[ -z $lanedir ]] || rm -rf -- "$lanedir"
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

# The longest server tests (tens of seconds each, here), started first when
# PGCB_TEST_JOBS runs several lanes, so that none of them is left to run alone
# at the end; the rest follow in name order.
LONGEST=(test_check_driver valgrind_runner.sh test_bridge_e2e adapter_load.sh ab_gate.sh gate_power.sh instructions_ab.sh
         test_bridge test_faults_run install.sh server_faults.sh secrets.sh test_profile_e2e
         test_aa test_journal_e2e stream_e2e.sh adapter_stream.sh wire_e2e.sh)

# start_server DIR: start a throw-away server in DIR (pinned to the last CPU
# when there are two or more); prints its export line; 1 if it did not start.
start_server() {
    local cpus_arg=()
    if (($(nproc) >= 2)); then cpus_arg=(--cpus "$(last_cpu)"); fi
    "$pgserver" start "$1" "${cpus_arg[@]}"
}

# run_entry ENTRY: run one server test: "bin:NAME" (BUILD_DIR/tests/NAME) or
# "sh:tests/server/X.sh" (given BUILD_DIR), or print its SKIP line.
run_entry() {
    local e=$1 s
    case $e in
        bin:*) run_binaries "tests/server/${e#bin:}.c" ;;
        sh:*)
            s=${e#sh:}
            if ((san_build)) && grep -q '^# pgcb-test: plain build only' "$s"; then
                printf 'SKIP %s: plain build only (%s): the plain build'"'"'s run covers it\n' \
                    "${s#tests/}" "$(sed -n 's/^# pgcb-test: plain build only: //p' "$s" | head -n 1)"
                return 0
            fi
            run_test "${s#tests/}" "$s" "$build"
            ;;
    esac
}

# lane K QUEUE DIR ENV_LINE: one of PGCB_TEST_JOBS lanes, in a subshell: with
# the server of ENV_LINE, takes the next entry of QUEUE (DIR/next, under
# flock) until none is left; each test's output is kept in a file and printed
# whole, with its result line, under a lock on DIR/print. Writes its counts to
# DIR/counts.K.
lane() {
    local k=$1 queue=$2 dir=$3 env_line=$4 i e n
    self=$BASHPID
    passed=0 failed=0 current_pid=""
    trap 'if [[ -n $current_pid ]]; then kill -TERM "$current_pid" 2>/dev/null; wait "$current_pid" 2>/dev/null; fi; exit 143' TERM INT
    trap - EXIT
    eval "$env_line"
    mapfile -t entries <"$queue"
    n=${#entries[@]}
    while :; do
        {
            flock 9
            i=$(<"$dir/next")
            printf '%d\n' $((i + 1)) >"$dir/next"
        } 9<"$dir/next"
        ((i < n)) || break
        e=${entries[i]}
        run_entry "$e" >"$dir/out.$k" 2>&1 || true
        { flock 8; cat -- "$dir/out.$k"; } 8<"$dir/next"
    done
    printf '%d %d\n' "$passed" "$failed" >"$dir/counts.$k"
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
            # A test that would silently not run: a failure, not a note.
            cpu_before=$(children_cpu_ms)
            result "$(basename -- "$s" .sh)" FAIL "$(now_us)" \
                "$s is not executable: not run (chmod +x it; every tests/server/*.sh is a test)"
        fi
    done
    if ((${#srcs[@]} + ${#scripts[@]} == 0)); then
        printf 'no server tests (tests/server/test_*.c, tests/server/*.sh)\n'
        return 0
    fi
    # The entries: the LONGEST first (in that order), then the rest.
    local -a all=() entries=()
    local e l
    for s in "${srcs[@]}"; do all+=("bin:$(basename -- "$s" .c)"); done
    for s in "${scripts[@]}"; do all+=("sh:$s"); done
    for l in "${LONGEST[@]}"; do
        for e in "${all[@]}"; do
            if [[ ${e#*:} == "$l" || ${e#*:} == tests/server/"$l" ]]; then entries+=("$e"); fi
        done
    done
    for e in "${all[@]}"; do
        [[ " ${entries[*]} " == *" $e "* ]] || entries+=("$e")
    done

    local lanes=$test_jobs k start env_line
    if ((lanes > ${#entries[@]})); then lanes=${#entries[@]}; fi
    local -a envs=()
    # One server per lane, started one after another.
    for ((k = 0; k < lanes; k++)); do
        srvdir=$(mktemp -d "${TMPDIR:-/tmp}/pgcb-test.XXXXXX") || die "mktemp -d failed"
        srvdirs+=("$srvdir")
        start=$(now_us)
        if ! env_line=$(start_server "$srvdir"); then
            result pgserver-start FAIL "$start" "could not start the test server: server tests not run"
            for e in "${entries[@]}"; do
                result "${e#*:}" FAIL "$(now_us)" "not run: no server"
            done
            stop_server
            return 0
        fi
        envs+=("$env_line")
        (eval "$env_line"; printf '%s: test server%s: socket %s port %s, CPUs %s\n' "$prog" \
            "$( ((lanes > 1)) && printf ' of lane %d' $((k + 1)))" "$PGHOST" "$PGPORT" \
            "${PGCB_SERVER_CPUS:-not pinned}" >&2)
    done

    if ((lanes == 1)); then
        eval "${envs[0]}"
        for e in "${entries[@]}"; do run_entry "$e"; done
    else
        local dir p f
        dir=$(mktemp -d "${TMPDIR:-/tmp}/pgcb-lanes.XXXXXX") || die "mktemp -d failed"
        lanedir=$dir
        printf '%s\n' "${entries[@]}" >"$dir/queue"
        echo 0 >"$dir/next"
        printf '%s: %d server tests in %d lanes, each with its own server\n' "$prog" "${#entries[@]}" "$lanes" >&2
        for ((k = 0; k < lanes; k++)); do
            lane "$k" "$dir/queue" "$dir" "${envs[k]}" &
            lane_pids+=($!)
        done
        for p in "${lane_pids[@]}"; do wait "$p" || true; done
        lane_pids=()
        for ((k = 0; k < lanes; k++)); do
            f=$dir/counts.$k
            if [[ -f $f ]]; then
                read -r p s <"$f"
                passed=$((passed + p))
                failed=$((failed + s))
            else
                result "lane-$((k + 1))" FAIL "$(now_us)" "the lane ended without its counts"
            fi
        done
        rm -rf -- "$dir"
        lanedir=""
    fi
    stop_server
    unset PGHOST PGPORT PGUSER PGDATABASE PGCB_SERVER_CPUS PGPASSFILE
}

if [[ $mode == unit || $mode == all || $mode == check ]]; then run_unit; fi
if [[ $mode == server || $mode == all || $mode == check ]]; then run_server; fi

printf '%d passed, %d failed\n' "$passed" "$failed"
((failed == 0)) || exit 1
