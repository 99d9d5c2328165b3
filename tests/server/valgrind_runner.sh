#!/usr/bin/env bash
# A short benchmark of both shipped drivers under valgrind memcheck, against
# the server tests/run.sh started: no memory error and no definite leak in the
# runner or the drivers.   tests/server/valgrind_runner.sh BUILD_DIR
set -euo pipefail

build=${1:?usage: valgrind_runner.sh BUILD_DIR}
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
command -v valgrind >/dev/null || { echo "valgrind_runner.sh: valgrind is not installed (scripts/install-deps.sh installs it)" >&2; exit 1; }
if nm "$build/runner" 2>/dev/null | grep __asan_init >/dev/null; then
    echo "valgrind_runner.sh: $build is an AddressSanitizer build, which valgrind cannot run; the plain build's run covers valgrind"
    exit 0
fi

tmp=$(mktemp -d /tmp/pgcb-valgrind.XXXXXX)
trap 'rm -rf -- "$tmp"' EXIT
cat >"$tmp/v.ini" <<INI
[bench]
time_ms = 100
queries = 20
warmup_ms = 0
[server]
setup = $root/sql/benchmark_rows.sql
[driver.libpq_sync]
path = $build/drivers/libpq_sync.so
[driver.null]
path = $build/drivers/null.so
[query.limit_1]
sql = SELECT id, int_value, string_value, null_value, bool_value FROM benchmark_rows ORDER BY id LIMIT 1
rows = 1
[query.limit_100]
sql = SELECT id, int_value, string_value, null_value, bool_value FROM benchmark_rows ORDER BY id LIMIT 100
rows = 100
[suite.s]
depth = 1 2
INI

status=0
valgrind --quiet --error-exitcode=99 --leak-check=full --show-leak-kinds=definite \
    --errors-for-leak-kinds=definite --log-file="$tmp/valgrind.log" \
    "$build/runner" -q -c "$tmp/v.ini" -o "$tmp/r.json" || status=$?
if ((status != 0)); then
    cat "$tmp/valgrind.log" >&2
    echo "valgrind_runner.sh: the runner under valgrind exited with status $status (99: memcheck found errors)" >&2
    exit 1
fi
[[ -s $tmp/r.json ]] || { echo "valgrind_runner.sh: no result written" >&2; exit 1; }
echo "valgrind_runner.sh: no memory errors, no definite leaks"
