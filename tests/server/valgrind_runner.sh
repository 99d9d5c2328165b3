#!/usr/bin/env bash
# Every shipped driver under valgrind memcheck, against the server tests/run.sh
# started: short runner runs with no memory error and no definite leak in the
# runner or any driver.   tests/server/valgrind_runner.sh BUILD_DIR
#   pipelining: libpq_pipeline, rawwire and floor, each in text and binary,
#               depths 1, 10 and 1000;
#   sequential: libpq_sync in text and binary, and null, depths 1 and 2;
#   profiled:   libpq_sync and null with profile = on, depth 1;
# both with the benchmark query at LIMIT 1 and LIMIT 100.
#   parameters: run_batch_params (ABI 1.1) of every driver that talks to a
#               server, in process: the test_params binary under memcheck.
#   bridge:     the bridge driver with a Node.js and a Python client and the
#               fake adapter, in a run; and tests/server/test_bridge.c (every
#               shipped client, dumps, faults, bad frames) under memcheck.
#               The adapters themselves are other programs, not traced.
# pgcb-test: plain build only: valgrind cannot run a sanitizer build
set -euo pipefail

prog=valgrind_runner.sh
build=${1:?usage: valgrind_runner.sh BUILD_DIR}
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd -- "$build" && pwd)
command -v valgrind >/dev/null || { echo "$prog: valgrind is not installed (scripts/install-deps.sh installs it)" >&2; exit 1; }
if nm "$build/runner" 2>/dev/null | grep __asan_init >/dev/null; then
    echo "$prog: $build is an AddressSanitizer build, which valgrind cannot run; the plain build's run covers valgrind"
    exit 0
fi

tmp=$(mktemp -d /tmp/pgcb-valgrind.XXXXXX)
trap 'rm -rf -- "$tmp"' EXIT

# ini DEPTHS DRIVER[:FORMAT]...: an INI on stdout: a tiny budget (2 execution
# orders), the benchmark table, a [driver.DRIVER_FORMAT] (result_format =
# FORMAT) or [driver.DRIVER] per argument, the benchmark query with LIMIT 1
# and LIMIT 100, one suite at DEPTHS.
ini() {
    local depths=$1 arg n
    shift
    printf '[bench]\ntime_ms = 100\nqueries = 20\nwarmup_ms = 0\norders = 2\n'
    printf '[server]\nsetup = %s/sql/benchmark_rows.sql\n' "$root"
    for arg; do
        if [[ $arg == *:* ]]; then
            printf '[driver.%s_%s]\npath = %s/drivers/%s.so\nresult_format = %s\n' \
                "${arg%%:*}" "${arg#*:}" "$build" "${arg%%:*}" "${arg#*:}"
        else
            printf '[driver.%s]\npath = %s/drivers/%s.so\n' "$arg" "$build" "$arg"
        fi
    done
    for n in 1 100; do
        printf '[query.limit_%s]\nsql = SELECT id, int_value, string_value, null_value, bool_value FROM benchmark_rows ORDER BY id LIMIT %s\nrows = %s\n' \
            "$n" "$n" "$n"
    done
    printf '[suite.s]\ndepth = %s\n' "$depths"
}

# memcheck NAME: the runner under valgrind on $tmp/NAME.ini; fails the script
# on a memory error, a definite leak, any other failure or no result.
memcheck() {
    local name=$1 status=0
    valgrind --quiet --error-exitcode=99 --leak-check=full --show-leak-kinds=definite \
        --errors-for-leak-kinds=definite --log-file="$tmp/$name.log" \
        "$build/runner" -c "$tmp/$name.ini" -o "$tmp/$name.json" >"$tmp/$name.out" 2>&1 || status=$?
    if ((status != 0)); then
        cat "$tmp/$name.out" "$tmp/$name.log" >&2
        echo "$prog: $name: the runner under valgrind exited with status $status (99: memcheck found errors)" >&2
        exit 1
    fi
    [[ -s $tmp/$name.json ]] || { echo "$prog: $name: no result written" >&2; exit 1; }
    echo "$prog: $name: no memory errors, no definite leaks"
}

ini "1 10 1000" libpq_pipeline:text libpq_pipeline:binary rawwire:text rawwire:binary \
    floor:text floor:binary >"$tmp/pipelining.ini"
ini "1 2" libpq_sync:text libpq_sync:binary null >"$tmp/sequential.ini"
# A profiled run (docs/profiling.md): the recordings, their folding, the
# result's profile blocks and the top table (perf itself is not traced).
ini "1" libpq_sync null | sed 's/^\[bench\]$/[bench]\nprofile = on/' >"$tmp/profiled.ini"
{
    ini "1 10" libpq_sync
    printf '[driver.pg]\npath = %s/drivers/bridge.so\nadapter = node\nclient = pg\n' "$build"
    printf '[driver.asyncpg]\npath = %s/drivers/bridge.so\nadapter = python\nclient = asyncpg\n' "$build"
    printf '[driver.fake]\npath = %s/drivers/bridge.so\nclient = fake\n' "$build"
    printf 'command = /usr/bin/python3 %s/tests/fixtures/adapters/fake_adapter.py\n' "$root"
    printf 'options = io=yes\n'
} >"$tmp/bridge.ini"

# memcheck_test NAME BINARY: a test program of BUILD_DIR/tests under memcheck;
# fails the script on a memory error, a definite leak or a failed test.
memcheck_test() {
    local name=$1 bin=$2 status=0
    PGCB_BUILD=$build valgrind --quiet --error-exitcode=99 --leak-check=full \
        --show-leak-kinds=definite --errors-for-leak-kinds=definite --log-file="$tmp/$name.log" \
        "$build/tests/$bin" >"$tmp/$name.out" 2>&1 || status=$?
    if ((status != 0)); then
        cat "$tmp/$name.out" "$tmp/$name.log" >&2
        echo "$prog: $name: $bin under valgrind exited with status $status (99: memcheck found errors)" >&2
        exit 1
    fi
    echo "$prog: $name: $bin: no memory errors, no definite leaks"
}

# One after another, never side by side: every run's [server] setup, and
# test_bridge's, recreates benchmark_rows on the one server, and a run beside
# it would meet the table missing (42P01).
memcheck pipelining
memcheck sequential
memcheck profiled
memcheck bridge
# tests/server/test_params.c: NULLs, empty and 300 kB values, depth 1000 with
# distinct values, errors, in every sync mode and result format (each value
# its own allocation of exactly its length, so a read past one is an error
# here).
memcheck_test parameters test_params
# tests/server/test_bridge.c: every shipped client, dumps, blocks, the fake
# adapter's faults and bad frames, in the bridge (the adapters are not traced).
memcheck_test bridge_test test_bridge
