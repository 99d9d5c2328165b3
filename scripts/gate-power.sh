#!/usr/bin/env bash
# scripts/gate-power.sh -- the A/B gate's power, measured (issue 43,
# docs/regressions.md "The gate's power"): N A/B runs of the same build
# (A/A: how often the gate raises a false alarm) and N with a planted
# regression of each given size (how often it catches it), each a whole
# `scripts/ab.sh` run, then the rates with their exact (Clopper-Pearson)
# intervals, per group and overall, for each paired test and for shorter
# runs (each run's first K orders).
#
#   scripts/gate-power.sh [OPTIONS]                        (a C driver: libpq_sync)
#   scripts/gate-power.sh [OPTIONS] --driver BASE.so --plant PLANT.so
#   scripts/gate-power.sh [OPTIONS] --client pg            (a bridged client: node's pg)
#   scripts/gate-power.sh --tabulate DIR [OPTIONS]         (the tables again, no run)
#
# The plant. C driver: BASE is build/drivers/libpq_sync.so, HEAD
# build/tests/fixtures/libpq_sync_plant.so (mk/fixtures.mk) with
# PGCB_PLANT_PCT=SIZE: each batch spins on the monotonic clock for SIZE % of
# the time it took, so HEAD is SIZE % slower in every group whatever the
# machine's speed (drivers/libpq_sync/libpq_sync.c, pq_plant_spin).
# --client pg: BASE is the node adapter's pg, HEAD a copy of it whose Query
# spins SIZE % of its own time at ReadyForQuery (read from PGCB_PLANT_PCT).
# Size 0 is the A/A: BASE against itself (two copies, as ab.sh loads them).
# --driver / --plant: another C driver and its planted build (one that reads
# PGCB_PLANT_PCT, or any HEAD: the sizes then only label the runs).
#
# Options:
#   --runs N            runs per size (default 20)
#   --sizes "0 5 10"    the planted sizes in %, 0 = A/A (default "0 5 10")
#   --config FILE       the A/B run's shape (default conf/ab.ini)
#   --fail-above PCT    the gate's threshold (default 2)
#   --orders "K ..."    also judge each run on its first K orders only
#                       (aggregate --ab-orders; default: 12 24 and all)
#   --tests "T ..."     the paired tests to judge with (default "sign+overall sign";
#                       signed-rank is the third)
#   --driver SO         BASE, a C driver (default build/drivers/libpq_sync.so)
#   --plant SO          HEAD of the planted sizes (default
#                       build/tests/fixtures/libpq_sync_plant.so)
#   --build CMD         first run CMD (sh -c; e.g. "make fixtures"): when it
#                       fails, one line and no run made
#   --out DIR           where everything goes (default results/gate-power-UTCSTAMP)
#   --tabulate DIR      only tabulate the runs already in DIR
#   --build-dir DIR     pgclientbench's build directory (default build)
#   --respawn WHEN      ab.sh's --respawn (as_needed or order; default ab.sh's:
#                       order for --client, as_needed for a C driver)
#
# The runs are interleaved (A/A, 5 %, 10 %, A/A, ...), so that whatever the
# machine does over the hour falls on every size alike. Each run's ab.sh
# output stays in DIR/size-S/run-I/. A run whose ab.sh wrote no result (a
# side failed to load, the server went away) or in which a side failed a
# group (crashed, hung, read wrong rows) is counted as failed, said with its
# reason, and left out of the rates; the others are kept.
#
# Writes DIR/power.md (the tables) and DIR/power.json, prints the tables.
# Exit status: 0 tabulated; 1 nothing could be run (the plant does not
# build or load: one line, no run made); 2 bad usage.
set -u
shopt -s nullglob

TOP=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "gate-power.sh: $*" >&2; exit 1; }
usage() { echo "gate-power.sh: $*; see the header of scripts/gate-power.sh" >&2; exit 2; }

runs=20 sizes="0 5 10" config=$TOP/conf/ab.ini fail_above=2 orders_list="12 24 all"
tests="sign+overall sign" out='' tabulate='' client='' build_dir=$TOP/build
base='' plant='' build_cmd='' respawn=''
while [ $# -gt 0 ]; do
    case $1 in
    --runs|--sizes|--config|--fail-above|--orders|--tests|--out|--tabulate|--client|--build-dir|--driver|--plant|--build|--respawn)
        [ $# -ge 2 ] || usage "$1 needs a value"
        case $1 in
        --runs) runs=$2 ;; --sizes) sizes=$2 ;; --config) config=$2 ;;
        --fail-above) fail_above=$2 ;; --orders) orders_list=$2 ;; --tests) tests=$2 ;;
        --out) out=$2 ;; --tabulate) tabulate=$2 ;; --client) client=$2 ;;
        --build-dir) build_dir=$2 ;; --driver) base=$2 ;; --plant) plant=$2 ;;
        --build) build_cmd=$2 ;; --respawn) respawn=$2 ;;
        esac
        shift ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) usage "unknown argument '$1'" ;;
    esac
    shift
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || usage "--runs '$runs': a whole number >= 1"
for s in $sizes; do [[ $s =~ ^[0-9]+(\.[0-9]+)?$ ]] || usage "--sizes: '$s' is not a size in %"; done
for k in $orders_list; do [[ $k == all || $k =~ ^[1-9][0-9]*$ ]] || usage "--orders: '$k' is not a count"; done
for t in $tests; do case $t in sign+overall|sign|signed-rank) ;; *) usage "--tests: '$t' (sign+overall, sign or signed-rank)" ;; esac; done
case $client in ''|pg) ;; *) usage "--client '$client': pg is the bridged client planted here" ;; esac
[ -z "$client" ] || [ -z "$base$plant" ] || usage "--client and --driver/--plant: one or the other"
case $respawn in ''|as_needed|order) ;; *) usage "--respawn '$respawn': as_needed or order" ;; esac
respawn_args=(); [ -z "$respawn" ] || respawn_args=(--respawn "$respawn")
build_dir=$(cd "$build_dir" 2>/dev/null && pwd) || die "--build-dir: no such directory"
for p in aggregate runner; do [ -x "$build_dir/$p" ] || die "$build_dir/$p: not built (make)"; done

tab() {
    python3 "$TOP/scripts/lib/gate_power.py" --dir "$1" --aggregate "$build_dir/aggregate" \
        --fail-above "$fail_above" --orders "$orders_list" --tests "$tests"
}
if [ -n "$tabulate" ]; then
    [ -d "$tabulate" ] || die "--tabulate $tabulate: no such directory"
    tab "$tabulate"
    exit $?
fi

[ -f "$config" ] || die "$config: no such config"
if [ -n "$build_cmd" ]; then
    sh -c "$build_cmd" > /tmp/gate-power-build.$$.log 2>&1 ||
        die "the planted build failed ('$build_cmd' exited $?; its log: /tmp/gate-power-build.$$.log): no run made"
    rm -f /tmp/gate-power-build.$$.log
fi
out=${out:-$TOP/results/gate-power-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out" || die "$out: cannot create it"
out=$(cd "$out" && pwd)

# The two sides, checked before any run.
if [ -z "$client" ]; then
    base=${base:-$build_dir/drivers/libpq_sync.so}
    plant=${plant:-$build_dir/tests/fixtures/libpq_sync_plant.so}
    [ -f "$base" ] || die "$base: no such driver (make)"
    base=$(cd "$(dirname "$base")" && pwd)/$(basename "$base")
    plant=$(cd "$(dirname "$plant")" 2>/dev/null && pwd)/$(basename "$plant")
    [ -f "$plant" ] || die "the planted build $plant is missing: make fixtures (mk/fixtures.mk)"
    # Each side loaded by the runner as a run would load it (--list-drivers
    # opens no connection).
    for side in base plant; do
        printf '[driver.%s]\npath = %s\n[query.q]\nsql = SELECT 1\n[suite.s]\nqueries = q\n' \
            "$side" "${!side}" > "$out/$side-check.ini"
        "$build_dir/runner" -c "$out/$side-check.ini" --list-drivers > "$out/$side-check.log" 2>&1 ||
            die "$([ $side = plant ] && echo "the planted build" || echo BASE) ${!side} does not load: $(tail -1 "$out/$side-check.log" | sed 's/^runner: [^ ]*: //'): no run made"
    done
    side_args() { # size -> ab.sh arguments
        if [ "$1" = 0 ]; then echo "--allow-same --driver $base $base"
        else echo "--driver $base $plant"; fi
    }
else
    # shellcheck source=scripts/lib/pg-copy.sh
    . "$TOP/scripts/lib/pg-copy.sh"
    pg_module_dirs "$build_dir/adapters/node/node_modules" "$out/mods/base" "$out/mods/plant" ||
        die "no pg to plant in: no run made"
    python3 "$TOP/scripts/lib/plant_pg.py" "$out/mods/plant/node_modules/pg/lib/query.js" ||
        die "cannot plant the regression in pg's lib/query.js (see above): no run made"
    side_args() {
        if [ "$1" = 0 ]; then echo "--allow-same --client pg $out/mods/base $out/mods/base"
        else echo "--client pg $out/mods/base $out/mods/plant"; fi
    }
fi

cat > "$out/params.json" <<EOF
{"runs": $runs, "sizes": "$sizes", "config": "$config", "fail_above": $fail_above,
 "client": "${client:-libpq_sync}", "respawn": "${respawn:-default}", "started_at": "$(date -u +%FT%TZ)"}
EOF
echo "gate-power.sh: $runs runs x sizes ($sizes) % of ${client:-libpq_sync}, $config, into $out" >&2
for ((i = 1; i <= runs; i++)); do
    for s in $sizes; do
        d=$out/size-$s/run-$i
        mkdir -p "$d"
        t0=$(date +%s.%N)
        # shellcheck disable=SC2046 # side_args gives words, none with spaces
        PGCB_PLANT_PCT=$s PGCB_PLANT_ITERS_PER_ROW=0 \
            "$TOP/scripts/ab.sh" --config "$config" --out "$d" --fail-above "$fail_above" \
            --build-dir "$build_dir" "${respawn_args[@]}" $(side_args "$s") > "$d/ab.out" 2> "$d/ab.err"
        rc=$?
        t1=$(date +%s.%N)
        printf '{"exit": %d, "seconds": %.1f}\n' "$rc" "$(echo "$t1 - $t0" | bc)" > "$d/run.json"
        case $rc in
        0|3) echo "gate-power.sh: size $s % run $i: exit $rc ($(cat "$d/run.json"))" >&2 ;;
        *) echo "gate-power.sh: size $s % run $i FAILED (ab.sh exit $rc): $(tail -1 "$d/ab.err")" >&2 ;;
        esac
    done
done
tab "$out"
