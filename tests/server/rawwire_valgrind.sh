#!/usr/bin/env bash
# rawwire and floor under valgrind memcheck, against the server tests/run.sh
# started: a short runner run (text and binary, depths 1, 10 and 1000) with
# no memory error and no definite leak.   tests/server/rawwire_valgrind.sh BUILD_DIR
set -euo pipefail

build=${1:?usage: rawwire_valgrind.sh BUILD_DIR}
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd -- "$build" && pwd)
command -v valgrind >/dev/null || { echo "rawwire_valgrind.sh: valgrind is not installed (scripts/install-deps.sh installs it)" >&2; exit 1; }
if nm "$build/runner" 2>/dev/null | grep __asan_init >/dev/null; then
    echo "rawwire_valgrind.sh: $build is an AddressSanitizer build, which valgrind cannot run; the plain build's run covers valgrind"
    exit 0
fi

tmp=$(mktemp -d /tmp/rw-valgrind.XXXXXX)
trap 'rm -rf -- "$tmp"' EXIT
cat >"$tmp/v.ini" <<INI
[bench]
time_ms = 100
queries = 20
warmup_ms = 0
[server]
setup = $root/sql/benchmark_rows.sql
[driver.rawwire]
path = $build/drivers/rawwire.so
result_format = binary
[driver.rawwire_text]
path = $build/drivers/rawwire.so
result_format = text
[driver.floor]
path = $build/drivers/floor.so
[query.limit_1]
sql = SELECT id, int_value, string_value, null_value, bool_value FROM benchmark_rows ORDER BY id LIMIT 1
rows = 1
[query.limit_500]
sql = SELECT id, int_value, string_value, null_value, bool_value FROM benchmark_rows ORDER BY id LIMIT 500
rows = 500
[suite.s]
depth = 1 10 1000
INI

status=0
valgrind --quiet --error-exitcode=99 --leak-check=full --show-leak-kinds=definite \
    --errors-for-leak-kinds=definite --log-file="$tmp/valgrind.log" \
    "$build/runner" -q -c "$tmp/v.ini" -o "$tmp/r.json" || status=$?
if ((status != 0)); then
    cat "$tmp/valgrind.log" >&2
    echo "rawwire_valgrind.sh: the runner under valgrind exited with status $status (99: memcheck found errors)" >&2
    exit 1
fi
[[ -s $tmp/r.json ]] || { echo "rawwire_valgrind.sh: no result written" >&2; exit 1; }
echo "rawwire_valgrind.sh: no memory errors, no definite leaks"
