#!/usr/bin/env bash
# A driver against pgbench, same server, same query, same pinning:
#   scripts/compare-pgbench.sh [-D DRIVER] [-d DEPTH] [-O KEY=VALUE]... [SECONDS_PER_RUN] [ROUNDS]
#   (defaults: libpq_sync, depth 1, 5 s, 5 rounds)
#
# Each round runs `build/runner` (the one driver, one query, at DEPTH) and
# `pgbench -n -M prepared -c 1 -T SECONDS -f SCRIPT` back to back, both pinned
# to the client CPU (PGCB_CLIENT_CPUS, default 0), alternating which goes
# first. With DEPTH > 1 the pgbench script is \startpipeline, DEPTH copies of
# the query, \endpipeline (one sync per pipeline: compare with the driver's
# -O sync=per_batch), and its queries/s is tps x DEPTH. Prints queries/s per
# round, the medians and their ratio. The server is a throw-away local one
# pinned to the other CPUs (scripts/pgserver.sh), unless PGCB_CONNINFO /
# PGHOST ... name one. pgbench discards the values it receives; our drivers
# convert and fold every one of them, so the ratio includes what reading the
# values costs.
set -euo pipefail

prog=compare-pgbench.sh
usage() { printf 'usage: %s [-D DRIVER] [-d DEPTH] [-O KEY=VALUE]... [SECONDS_PER_RUN] [ROUNDS]\n' "$0" >&2; exit 2; }
driver=libpq_sync
depth=1
opts=()
while getopts D:d:O: flag; do
    case $flag in
        D) driver=$OPTARG ;;
        d) depth=$OPTARG ;;
        O) [[ $OPTARG == *=* ]] || usage; opts+=("${OPTARG%%=*} = ${OPTARG#*=}") ;;
        *) usage ;;
    esac
done
shift $((OPTIND - 1))
secs=${1:-5}
rounds=${2:-5}
[[ $secs =~ ^[1-9][0-9]*$ && $rounds =~ ^[1-9][0-9]*$ && $depth =~ ^[1-9][0-9]*$ ]] || usage
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
runner=$root/build/runner
[[ -x $runner ]] || { printf '%s: %s not built (run make)\n' "$prog" "$runner" >&2; exit 1; }
[[ -f $root/build/drivers/$driver.so ]] || { printf '%s: no driver build/drivers/%s.so\n' "$prog" "$driver" >&2; exit 1; }
command -v pgbench >/dev/null || { printf '%s: pgbench not found\n' "$prog" >&2; exit 1; }
command -v jq >/dev/null || { printf '%s: jq not found (scripts/install-deps.sh installs it)\n' "$prog" >&2; exit 1; }
client=${PGCB_CLIENT_CPUS:-0}

# shellcheck source=scripts/lib/local-server.sh
. "$root/scripts/lib/local-server.sh"
comparison_start "$prog" "$client" pgcb-vs-pgbench
tmp=$comparison_tmp

median() { sort -n | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else printf "%.1f\n", (v[NR/2]+v[NR/2+1])/2}'; }

printf 'server: PostgreSQL %s, client CPU %s, %s at depth %s%s, %s s per run, %s rounds\n' \
    "$(psql -XAtc 'SHOW server_version')" "$client" "$driver" "$depth" \
    "${opts[*]:+ (${opts[*]})}" "$secs" "$rounds"
for limit in 1 500; do
    sql="SELECT id, int_value, string_value, null_value, bool_value FROM benchmark_rows ORDER BY id LIMIT $limit"
    if ((depth == 1)); then
        printf '%s;\n' "$sql" >"$tmp/q.sql"
    else
        { printf '%s\n' '\startpipeline'; for ((i = 0; i < depth; i++)); do printf '%s;\n' "$sql"; done
          printf '%s\n' '\endpipeline'; } >"$tmp/q.sql"
    fi
    cat >"$tmp/r.ini" <<INI
[bench]
time_ms = $((secs * 1000))
queries = 1
warmup_ms = 500
cpus = $client
[driver.$driver]
path = $root/build/drivers/$driver.so
$(printf '%s\n' "${opts[@]}")
[query.limit_$limit]
sql = $sql
rows = $limit
[suite.s]
depth = $depth
INI
    : >"$tmp/ours"
    : >"$tmp/theirs"
    for ((r = 1; r <= rounds; r++)); do
        run_ours() {
            "$runner" -q -c "$tmp/r.ini" -o "$tmp/r.json" 2>/dev/null
            jq -r '.groups[0].results[0].queries_per_s' "$tmp/r.json" >>"$tmp/ours"
        }
        run_theirs() {
            taskset -c "$client" pgbench -n -M prepared -c 1 -T "$secs" -f "$tmp/q.sql" 2>/dev/null \
                | sed -n 's/^tps = \([0-9.]*\) .*/\1/p' | awk -v d="$depth" '{print $1 * d}' >>"$tmp/theirs"
        }
        if ((r % 2)); then run_ours; run_theirs; else run_theirs; run_ours; fi
        printf 'LIMIT %-3s round %d: %s %8.0f q/s   pgbench %8.0f q/s\n' "$limit" "$r" "$driver" \
            "$(tail -n1 "$tmp/ours")" "$(tail -n1 "$tmp/theirs")"
    done
    ours=$(median <"$tmp/ours")
    theirs=$(median <"$tmp/theirs")
    # The machine drifts between rounds: the median of the per-round ratios
    # (each pair run back to back) is the steadier figure.
    paired=$(paste "$tmp/ours" "$tmp/theirs" | awk '{print $1 / $2}' | median)
    printf 'LIMIT %-3s median:  %s %8.0f q/s   pgbench %8.0f q/s   ratio of medians %.3f, median of round ratios %.3f\n' \
        "$limit" "$driver" "$ours" "$theirs" "$(awk -v a="$ours" -v b="$theirs" 'BEGIN {print a / b}')" "$paired"
done
