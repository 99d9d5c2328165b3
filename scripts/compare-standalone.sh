#!/usr/bin/env bash
# One bridged client measured by the runner against the same client in the
# tightest plain loop of its own language, same server, query and pinning:
#
#   scripts/compare-standalone.sh CLIENT [SECONDS]      (default 3)
#
# CLIENT: pg, pg-native, postgres (Node.js), psycopg, asyncpg (Python), pgx
# (Go), tokio-postgres (Rust), ruby-pg (Ruby's pg gem: the runner's driver ruby_pg, client pg),
# pgjdbc (Java).
# For each group of the seed's config (sequential and pipelined x10,
# LIMIT 1, 100 and 500):
# 1. the client's standalone script (adapters/node/standalone.mjs,
#    adapters/python/standalone.py, adapters/go/standalone/,
#    adapters/rust/standalone/, adapters/ruby/standalone.rb,
#    adapters/java/standalone/ (run with the adapter's JVM flags,
#    build/adapters/java/jvm.options): no benchmark
#    library, one clock read per batch, every value consumed; it shares only
#    the query text with the adapter), SECONDS, pinned to the client CPU
#    (PGCB_CLIENT_CPUS, default 0);
# 2. build/runner on that group, the same client through the bridge, beside
#    libpq_sync so that the client runs in interleaved execution orders as in
#    the default table (8 orders, SECONDS per driver, 1000 queries per order);
# 3. the standalone script again, right after (each group bracketed by its
#    own two standalone runs, seconds apart: this VM drifts by tens of
#    percent over minutes).
# For a Node.js client, the public benchmark's own script
# (adapters/node/seed_standalone.mjs, tinybench) is run once more, after the
# rest, as a second standalone figure (tinybench adds its own cost per
# iteration, so it is shown, not used for the verdict).
#
# Prints per group the medians, the client CPU per query of each, the bridge's
# overhead per block (outside the samples) as a share of the block, and
# whether the runner agrees: its median lies between the two standalone
# medians, or within 5% of the nearer one where they are closer than that.
# The last line: "N of 6 groups agree". The server is a throw-away local one
# pinned to the other CPUs (scripts/pgserver.sh) unless PGCB_CONNINFO /
# PGHOST ... name one. Takes about 6 x (3 x SECONDS + 5) seconds, and for
# Node.js about 3 minutes more for tinybench, for Java about 3 minutes more
# (each standalone run warms the JIT for 10 s).
# Exits 0 when it could measure, whatever the agreement; 1 on a failure.
set -euo pipefail

prog=compare-standalone.sh
usage() { printf 'usage: %s pg|pg-native|postgres|psycopg|asyncpg|pgx|tokio-postgres|ruby-pg|pgjdbc [SECONDS]\n' "$0" >&2; exit 2; }
(($# >= 1 && $# <= 2)) || usage
client=$1
secs=${2:-3}
[[ $secs =~ ^[1-9][0-9]*$ ]] || usage
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
runner=$root/build/runner
cpu=${PGCB_CLIENT_CPUS:-0}
[[ $cpu =~ ^[0-9]+$ ]] || { printf '%s: PGCB_CLIENT_CPUS=%s: one CPU number\n' "$prog" "$cpu" >&2; exit 2; }
die() { printf '%s: %s\n' "$prog" "$*" >&2; exit 1; }

case $client in
pg|pg-native|postgres)
    adapter=node
    standalone=(node --expose-gc "$root/build/adapters/node/standalone.mjs")
    [[ -f ${standalone[2]} ]] || die "build first: make" ;;
psycopg|asyncpg)
    adapter=python
    standalone=(/usr/bin/python3 "$root/build/adapters/python/standalone.py")
    [[ -f ${standalone[1]} ]] || die "build first: make" ;;
pgx)
    adapter=go
    standalone=("$root/build/adapters/go/pgcb-standalone-go")
    [[ -x ${standalone[0]} ]] || die "build first: make" ;;
tokio-postgres)
    adapter=rust
    standalone=("$root/build/adapters/rust/pgcb-standalone-rust")
    [[ -x ${standalone[0]} ]] || die "build first: make" ;;
ruby-pg)
    adapter=ruby
    adapter_client=pg
    standalone=(/usr/bin/ruby "$root/build/adapters/ruby/standalone.rb")
    [[ -f ${standalone[1]} ]] || die "build first: make" ;;
pgjdbc)
    adapter=java
    standalone=(/usr/bin/java "@$root/build/adapters/java/jvm.options" -jar
                "$root/build/adapters/java/pgcb-standalone-java.jar")
    [[ -f ${standalone[3]} ]] || die "build first: make" ;;
*) usage ;;
esac
[[ -x $runner ]] || die "build first: make"
command -v jq >/dev/null || die "jq not found (scripts/install-deps.sh installs it)"
name=${client//-/_}

# shellcheck source=scripts/lib/local-server.sh
. "$root/scripts/lib/local-server.sh"
comparison_start "$prog" "$cpu" pgcb-vs-standalone
tmp=$comparison_tmp

queries=(limit_1 limit_100 limit_500)
depths=(1 10)
sql_of() { printf 'SELECT * FROM benchmark_rows ORDER BY id LIMIT %s' "${1#limit_}"; }

# standalone DEPTH QUERY before|after: one run of the standalone loop.
standalone() {
    taskset -c "$cpu" "${standalone[@]}" "$client" "$1" $((secs * 1000)) "$(sql_of "$2")" \
        | jq -c --arg q "$2" '. + {query: $q}' >>"$tmp/$3.jsonl" \
        || die "the standalone $client script failed ($1, $2)"
}

{
    printf '[bench]\ntime_ms = %s\nqueries = 1000\nwarmup_ms = 1000\ncpus = %s\norders = 8\n' \
        $((secs * 1000)) "$cpu"
    printf '[driver.%s]\npath = %s/build/drivers/bridge.so\nadapter = %s\nclient = %s\n' \
        "$name" "$root" "$adapter" "${adapter_client:-$client}"
    printf '[driver.libpq_sync]\npath = %s/build/drivers/libpq_sync.so\n' "$root"
    for q in "${queries[@]}"; do
        printf '[query.%s]\nsql = %s\nrows = %s\n' "$q" "$(sql_of "$q")" "${q#limit_}"
    done
    printf '[suite.sequential]\ndepth = 1\n[suite.pipelined]\ndepth = 10\n'
} >"$tmp/run.ini"

printf 'server: PostgreSQL %s; client CPU %s; client %s (%s adapter)\n' \
    "$(psql -XAtc 'SHOW server_version')" "$cpu" "$client" "$adapter"
# Per group: the standalone loop, the runner on that group alone, the
# standalone loop again: each bracket is seconds wide, so that the machine's
# drift over minutes (tens of percent on a VM) is not in the comparison.
for d in "${depths[@]}"; do
    suite=sequential
    ((d > 1)) && suite=pipelined
    for q in "${queries[@]}"; do
        printf '%s: %s depth %s: standalone, runner, standalone (%s s each)\n' \
            "$prog" "$q" "$d" "$secs" >&2
        standalone "$d" "$q" before
        "$runner" -q -c "$tmp/run.ini" --suite "$suite" --query "$q" -o "$tmp/runner-$d-$q.json" \
            >/dev/null || die "the runner failed (exit $?)"
        standalone "$d" "$q" after
    done
done
jq -s '{drivers: .[0].drivers, groups: [.[].groups[]]}' "$tmp"/runner-*.json >"$tmp/runner.json"
seedcol=0
if [[ $adapter == node ]]; then
    printf '%s: the public benchmark'"'"'s script (tinybench), %s s per task\n' "$prog" "$secs" >&2
    BENCH_TIME_MS=$((secs * 1000)) taskset -c "$cpu" node --expose-gc \
        "$root/build/adapters/node/seed_standalone.mjs" 1 10 >"$tmp/seed.jsonl" \
        || die "the seed's script failed"
    jq -r --arg c "$name" 'select(.client == $c) | [.depth, .query, .median_ns] | @tsv' \
        "$tmp/seed.jsonl" >"$tmp/seed.tsv"
    seedcol=1
else
    : >"$tmp/seed.tsv"
fi

jq -r --arg c "$name" '.groups[] | .depth as $d | .query as $q | .results[] | select(.driver == $c)
       | [$d, $q, .median_ns, .cpu_ns_per_query,
          (if .blocks and .blocks > 0 and .overhead_ns_per_block != null
           then 100 * .overhead_ns_per_block * .blocks / .wall_ns else -1 end), .status] | @tsv' \
    "$tmp/runner.json" >"$tmp/runner.tsv"
for run in before after; do
    jq -r '[.depth, .query, .median_ns, .cpu_ns_per_query] | @tsv' "$tmp/$run.jsonl" >"$tmp/$run.tsv"
done
links=$(jq -r --arg c "$name" '.drivers[]? | select(.name == $c) | .links // empty' "$tmp/runner.json" | head -n1)
[[ -n $links ]] && printf 'runner: %s\n' "$links"
printf '\n%5s %-9s %12s %12s %12s %9s %8s %8s %8s %9s %s\n' depth query "standalone1" runner \
    "standalone2" "runner/sa" spread outside "bridge" "CPU r/sa" "$( ((seedcol)) && printf 'tinybench')"
awk -F'\t' -v seedcol="$seedcol" '
    FILENAME ~ /before/ {b[$1 FS $2] = $3; bc[$1 FS $2] = $4; next}
    FILENAME ~ /after/  {a[$1 FS $2] = $3; ac[$1 FS $2] = $4; next}
    FILENAME ~ /seed/   {s[$1 FS $2] = $3; next}
    {
        k = $1 FS $2
        if (!(k in b) || !(k in a)) next
        lo = a[k] < b[k] ? a[k] : b[k]
        hi = a[k] < b[k] ? b[k] : a[k]
        mid = (a[k] + b[k]) / 2
        spread = (hi - lo) / mid
        near = $3 < lo ? lo : $3 > hi ? hi : $3
        out = (near == $3) ? 0 : ($3 - near) / near
        ok = ($6 == "ok") && (out == 0 || (out < 0 ? -out : out) <= 0.05)
        n++; if (ok) agree++
        cpu = (bc[k] + ac[k]) / 2
        ratio = cpu > 0 ? $4 / cpu : 0
        bridge = $5 < 0 ? 0 : $5
        extra = ""
        if (seedcol && (k in s)) extra = sprintf("%6.1f us ", s[k] / 1e3)
        verdict = ok ? "agrees" : "DISAGREES"
        if ($6 != "ok") verdict = verdict " (" $6 ")"
        printf "%5s %-9s %9.1f us %9.1f us %9.1f us %9.3f %7.1f%% %+7.1f%% %7.1f%% %9.2f %s%s\n",
               $1, $2, b[k] / 1e3, $3 / 1e3, a[k] / 1e3, $3 / mid, 100 * spread, 100 * out,
               bridge, ratio, extra, verdict
    }
    END { printf "\n%d of %d groups agree\n", agree, n }
    ' "$tmp/before.tsv" "$tmp/after.tsv" "$tmp/seed.tsv" "$tmp/runner.tsv"
printf '\nstandalone1/2: the standalone loop'"'"'s median before and after the runner; runner: the\n'
printf 'pooled median over every order; spread: the standalone runs'"'"' difference over their mean;\n'
printf 'outside: how far the runner lies beyond the nearer standalone median (0: between them);\n'
printf 'agrees: between them, or within 5%% of the nearer; bridge: what the bridge took per block\n'
printf 'beyond the samples, as a share of the samples'"'"' time; CPU r/sa: client CPU per query, the\n'
printf 'runner'"'"'s over the standalone'"'"'s (both the whole process: every thread, GC included).\n'
