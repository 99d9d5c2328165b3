#!/usr/bin/env bash
# Instructions per query of the timed loop, under callgrind: noise-free.
#
#   scripts/callgrind-block.sh [--config FILE] DRIVER QUERY DEPTH [QUERIES]
#
# Runs build/runner (or $PGCB_RUNNER) under valgrind --tool=callgrind with
# one driver -- a name (build/drivers/NAME.so beside the runner, else the
# config's [driver.NAME]: libpq_sync, libpq_pipeline, rawwire, floor, null
# ...) or a driver file (a path with a / or ending in .so: another build of
# a driver) -- one query of the config (default conf/quick.ini: limit_1,
# limit_100, limit_500; --config FILE takes another's [query.*], [server]
# and [bench] protocol keys), at depth DEPTH, one execution order, no
# warm-up and QUERIES executed queries (default 1000), collecting only inside
# pgcb_measure_block (runner/host/measure.c: the timed loop, the driver's
# run_batch included) and only in the order's timed blocks (not the
# warm-up's first batch). Prints one line:
#   DRIVER QUERY depth DEPTH: N instructions in pgcb_measure_block, M queries, N/M per query (D/M in the driver's calls)
# (D: the calls the loop made into the driver, run_batch and all it calls,
# without the loop's own clock reads, whose count varies with timing.)
# The server is the PG* one (scripts/pgserver.sh start; eval its line). The
# callgrind files are kept in $PGCB_CG_DIR (default: a temporary directory,
# removed) for callgrind_annotate. Instruction counts are repeatable for the
# same binary, inputs and environment: use them to compare two builds of the
# timed loop where wall-clock medians on a noisy machine cannot
# (scripts/ab.sh --instructions does it for every group of an A/B config:
# docs/instructions.md). The counting itself is scripts/lib/callgrind.sh.
set -euo pipefail

prog=callgrind-block.sh
die() { printf '%s: %s\n' "$prog" "$*" >&2; exit 1; }
usage() { printf 'usage: %s [--config FILE] DRIVER QUERY DEPTH [QUERIES]\n' "$0" >&2; exit 2; }
here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/lib/callgrind.sh
. "$here/lib/callgrind.sh"
config=$here/../conf/quick.ini
if [[ ${1:-} == --config ]]; then
    (($# >= 2)) || usage
    config=$2
    shift 2
fi
(($# >= 3 && $# <= 4)) || usage
driver=$1 query=$2 depth=$3 queries=${4:-1000}
conc=${PGCB_CG_CONCURRENCY:-}
fn=pgcb_measure_block
if [[ -n $conc ]]; then
    [[ $conc =~ ^[1-9][0-9]*$ ]] || die "PGCB_CG_CONCURRENCY '$conc': expected a whole number >= 1"
    [[ $depth == 1 ]] || die "a concurrency suite has depth 1 (PGCB_CG_CONCURRENCY=$conc, depth $depth)"
    fn=pgcb_measure_load
fi
[[ $depth =~ ^[1-9][0-9]*$ ]] || die "depth '$depth': expected a whole number >= 1"
[[ $queries =~ ^[1-9][0-9]*$ ]] || die "queries '$queries': expected a whole number >= 1"
((queries % depth == 0)) || die "queries ($queries) must be a multiple of depth ($depth)"
[[ -f $config ]] || die "$config: no such config"
command -v valgrind >/dev/null || die "valgrind not found (apt-get install valgrind)"
runner=${PGCB_RUNNER:-$here/../build/runner}
[[ -x $runner ]] || die "runner '$runner' not found (run make first, or set PGCB_RUNNER)"
build=$(cd -- "$(dirname -- "$runner")" && pwd)
# A name: the driver built beside the runner, as before --config existed.
if [[ $driver != */* && $driver != *.so && -f $build/drivers/$driver.so ]]; then
    driver_arg=$build/drivers/$driver.so
else
    driver_arg=$driver
fi

tmp=$(mktemp -d)
trap 'rm -rf -- "$tmp"' EXIT
out=${PGCB_CG_DIR:-$tmp/cg}

# One order of one driver: a single host process, one measuring thread.
cg_ini "$config" "$tmp/cg.ini" "$queries" "$depth" "$query" "$conc" || die "cannot read $config"
cg_count "$runner" "$tmp/cg.ini" "$driver_arg" cg "$query" "$fn" "$out" || {
    [[ ! -s $out/runner.log ]] || tail -n 5 -- "$out/runner.log" >&2
    die "$cg_error"
}
printf '%s %s depth %s%s: %s instructions in %s, %s queries, %s per query (%s in the driver'"'"'s calls)\n' \
    "$driver" "$query" "$depth" "${conc:+ concurrency $conc}" "$cg_total" "$fn" "$cg_queries" \
    "$((cg_total / cg_queries))" "$((cg_driver / cg_queries))"
