#!/usr/bin/env bash
# Instructions per query of the timed loop, under callgrind: noise-free.
#
#   scripts/callgrind-block.sh DRIVER QUERY DEPTH [QUERIES]
#
# Runs build/runner (or $PGCB_RUNNER) under valgrind --tool=callgrind with
# one driver of conf/quick.ini (DRIVER: libpq_sync, libpq_pipeline, rawwire,
# floor, null ...), one query of it (limit_1, limit_100, limit_500), at depth
# DEPTH, one execution order, no warm-up and QUERIES executed queries (default
# 1000), collecting only inside pgcb_measure_block (runner/host/measure.c: the
# timed loop, the driver's run_batch included). Prints one line:
#   DRIVER QUERY depth DEPTH: N instructions in pgcb_measure_block, M queries, N/M per query
# The server is the PG* one (scripts/pgserver.sh start; eval its line). The
# callgrind files are kept in $PGCB_CG_DIR (default: a temporary directory,
# removed) for callgrind_annotate. Instruction counts are repeatable for the
# same binary, inputs and environment: use them to compare two builds of the
# timed loop where wall-clock medians on a noisy machine cannot.
set -euo pipefail

prog=callgrind-block.sh
die() { printf '%s: %s\n' "$prog" "$*" >&2; exit 1; }
(($# >= 3 && $# <= 4)) || { printf 'usage: %s DRIVER QUERY DEPTH [QUERIES]\n' "$0" >&2; exit 2; }
driver=$1 query=$2 depth=$3 queries=${4:-1000}
conc=${PGCB_CG_CONCURRENCY:-}
fn=pgcb_measure_block suite_extra=
if [[ -n $conc ]]; then
    [[ $conc =~ ^[1-9][0-9]*$ ]] || die "PGCB_CG_CONCURRENCY '$conc': expected a whole number >= 1"
    [[ $depth == 1 ]] || die "a concurrency suite has depth 1 (PGCB_CG_CONCURRENCY=$conc, depth $depth)"
    fn=pgcb_measure_load suite_extra="concurrency = $conc"
fi
[[ $depth =~ ^[1-9][0-9]*$ ]] || die "depth '$depth': expected a whole number >= 1"
[[ $queries =~ ^[1-9][0-9]*$ ]] || die "queries '$queries': expected a whole number >= 1"
((queries % depth == 0)) || die "queries ($queries) must be a multiple of depth ($depth)"
command -v valgrind >/dev/null || die "valgrind not found (apt-get install valgrind)"
here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
runner=${PGCB_RUNNER:-$here/../build/runner}
[[ -x $runner ]] || die "runner '$runner' not found (run make first, or set PGCB_RUNNER)"
build=$(cd -- "$(dirname -- "$runner")" && pwd)

tmp=$(mktemp -d)
trap 'rm -rf -- "$tmp"' EXIT
out=${PGCB_CG_DIR:-$tmp}
mkdir -p -- "$out"
rm -f -- "$out"/callgrind.out.*

# One order of one driver: a single host process, one measuring thread.
cat >"$tmp/cg.ini" <<INI
[bench]
time_ms   = 1
queries   = $queries
warmup_ms = 0
orders    = 1
cpus      = 0
batch_timeout_ms = 600000
output    = $tmp/cg.json

[server]
conninfo  =
setup     = $here/../sql/benchmark_rows.sql

[driver.$driver]
path = $build/drivers/$driver.so

[query.limit_1]
sql  = SELECT * FROM benchmark_rows ORDER BY id LIMIT 1
rows = 1

[query.limit_100]
sql  = SELECT * FROM benchmark_rows ORDER BY id LIMIT 100
rows = 100

[query.limit_500]
sql  = SELECT * FROM benchmark_rows ORDER BY id LIMIT 500
rows = 500

[suite.s]
depth   = $depth
queries = $query
$suite_extra
INI

valgrind --tool=callgrind --trace-children=yes --toggle-collect=$fn \
    --callgrind-out-file="$out/callgrind.out.%p" -q \
    "$runner" -c "$tmp/cg.ini" -q >"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; die "the runner failed"; }

# The host process is the one whose file has a nonzero total.
total=0
for f in "$out"/callgrind.out.*; do
    t=$(sed -n 's/^summary: //p; s/^totals: //p' "$f" | head -n1)
    [[ -n $t ]] && ((t > total)) && total=$t
done
((total > 0)) || die "no instructions collected in $fn"
done_q=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["groups"][0]["results"][0]["queries"])' "$tmp/cg.json")
printf '%s %s depth %s%s: %s instructions in %s, %s queries, %s per query\n' \
    "$driver" "$query" "$depth" "${conc:+ concurrency $conc}" "$total" "$fn" "$done_q" \
    "$((total / done_q))"
