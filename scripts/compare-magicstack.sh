#!/usr/bin/env bash
# MagicStack's pgbench harness against our runner's conf/magicstack.ini, on the
# same server and pinning (docs/magicstack.md):
#
#   scripts/compare-magicstack.sh --pgbench-dir DIR [--clients LIST] [--queries LIST]
#                                 [--duration SEC] [--warmup SEC] [--runner-secs SEC]
#                                 [--node-extras DIR]
#
# DIR: a checkout of github.com/MagicStack/pgbench (its code is not ours and is
#   not in this repository: git clone it, or take any copy of its tree). Only
#   its runners and query files are used: _python/pgbench_python.py,
#   _nodejs/index.js, _golang (built here), queries/*.json.
# --clients: of asyncpg, psycopg, pg, pg-native, pgx, pq (default: all); each
#   is run by MagicStack's runner for its language and through our bridge:
#     asyncpg   -> _python asyncpg          psycopg -> _python psycopg3-async
#     pg        -> _nodejs pg-js            pg-native -> _nodejs pg-native
#     pgx       -> _golang pgx              pq      -> _golang libpq (lib/pq)
#   Their Go runner: DIR/_golang/pgbench_golang when it is built there, else
#   built by this script into build/magicstack/pgbench_golang from DIR/_golang
#   at the versions of its own go.mod + go.sum (pgx v5, lib/pq, kingpin v2),
#   the modules from the Go module proxy (the machine's GOPROXY) into
#   build/magicstack/gomod, with Go 1.21 or later (/usr/local/go/bin/go, or GO);
#   without Go, or when the proxy cannot be reached, pgx and pq are skipped,
#   said. Ours for pq needs a [driver.pq] in conf/magicstack.ini.
# --queries: our query names (default all seven): pg_type generate_series
#   large_object arrays copyfrom batch oneplusone (their 1-7 .json files).
# --duration / --warmup: MagicStack's -D and --warmup-time per client and
#   query (default 10 and 2; theirs: 30 and 5). --runner-secs: our -T, per
#   group and driver over the execution orders (default: --duration).
# --node-extras DIR: a directory whose node_modules has the modules their
#   Node.js runner needs beside pg (argparse 2, csv-write-stream,
#   pg-copy-streams, ts-postgres); made with
#     npm install --prefix DIR argparse@2.0.1 csv-write-stream@2.0.0 pg-copy-streams@6.0.5 ts-postgres@1.3.1
#   pg and pg-native are OUR pinned ones (build/adapters/node/node_modules,
#   first on NODE_PATH). Without it pg and pg-native are skipped, said.
#
# Python: /usr/bin/python3 with Debian's packages (their runner imports every
# driver it knows at the top): python3-asyncpg python3-psycopg python3-numpy
# python3-uvloop python3-aiopg python3-async-timeout python3-psycopg2
# python3-postgresql; a missing one is named with the apt-get line.
#
# Order: their runner for every client and query (before), our runner on
# conf/magicstack.ini for the same clients and queries plus libpq_pipeline and
# rawwire, their runner again (after). Client pinned to PGCB_CLIENT_CPUS
# (default 0) with taskset, theirs and ours; the server is a throw-away local
# one on the other CPUs (scripts/pgserver.sh) unless PGCB_CONNINFO / PGHOST
# ... name one. Prints per client and query queries/s and p50/p99 of both;
# their percentiles come from their 10 µs histogram (latency_stats), ours
# from the runner's per-query histogram (concurrency suite) or per-sample
# latencies (batch, copy). Exits 0 when it measured, 1 on a failure.
set -euo pipefail

prog=compare-magicstack.sh
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
die() { printf '%s: %s\n' "$prog" "$*" >&2; exit 1; }
note() { printf '%s: %s\n' "$prog" "$*" >&2; }
usage() {
    sed -n '4,6p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

msdir="" clients="asyncpg,psycopg,pg,pg-native,pgx,pq"
queries="pg_type,generate_series,large_object,arrays,copyfrom,batch,oneplusone"
duration=10 warmup=2 rsecs="" extras=""
while (($#)); do
    case $1 in
    --pgbench-dir) msdir=${2:?}; shift 2 ;;
    --clients) clients=${2:?}; shift 2 ;;
    --queries) queries=${2:?}; shift 2 ;;
    --duration) duration=${2:?}; shift 2 ;;
    --warmup) warmup=${2:?}; shift 2 ;;
    --runner-secs) rsecs=${2:?}; shift 2 ;;
    --node-extras) extras=${2:?}; shift 2 ;;
    -h|--help) usage ;;
    *) printf '%s: unknown argument %s\n' "$prog" "$1" >&2; usage ;;
    esac
done
[[ -n $msdir ]] || usage
for n in "$duration" "$warmup" "${rsecs:-1}"; do
    [[ $n =~ ^[0-9]+$ ]] || die "not a number of seconds: $n"
done
((duration > 0)) || die "--duration must be above 0"
rsecs=${rsecs:-$duration}
cpu=${PGCB_CLIENT_CPUS:-0}
[[ $cpu =~ ^[0-9]+$ ]] || die "PGCB_CLIENT_CPUS=$cpu: one CPU number"
[[ -f $msdir/_python/pgbench_python.py && -d $msdir/queries ]] \
    || die "$msdir is not a MagicStack pgbench tree (no _python/pgbench_python.py, queries/)"
msdir=$(cd -- "$msdir" && pwd)
runner=$root/build/runner
[[ -x $runner ]] || die "build first: make"
command -v jq >/dev/null || die "jq not found (scripts/install-deps.sh installs it)"

# our query name -> their file
declare -A qfile=([pg_type]=1-pg_type [generate_series]=2-generate_series
    [large_object]=3-large_object [arrays]=4-arrays [copyfrom]=5-copyfrom
    [batch]=6-batch [oneplusone]=7-oneplusone)
IFS=, read -r -a qlist <<<"$queries"
for q in "${qlist[@]}"; do
    [[ -n ${qfile[$q]:-} ]] || die "--queries: no query $q (${!qfile[*]})"
    [[ -f $msdir/queries/${qfile[$q]}.json ]] || die "$msdir/queries/${qfile[$q]}.json is missing"
done

# Which clients can run here: their command line (without the query file).
IFS=, read -r -a clist <<<"$clients"
declare -A cmd=()
pyok=1
missing=$(/usr/bin/python3 - <<'PY' 2>/dev/null || echo "python3-numpy"
import importlib
need = {"numpy": "python3-numpy", "uvloop": "python3-uvloop", "asyncpg": "python3-asyncpg",
        "psycopg": "python3-psycopg", "psycopg2": "python3-psycopg2", "aiopg": "python3-aiopg",
        "async_timeout": "python3-async-timeout", "postgresql": "python3-postgresql"}
miss = []
for mod, pkg in need.items():
    try:
        importlib.import_module(mod)
    except Exception:
        miss.append(pkg)
print(" ".join(miss))
PY
)
if [[ -n $missing ]]; then
    pyok=0
    note "their Python runner needs Debian packages not installed: apt-get install $missing"
fi
nodeok=1
if [[ -z $extras ]]; then
    nodeok=0
    note "no --node-extras DIR: their Node.js runner needs argparse, csv-write-stream, pg-copy-streams, ts-postgres (see the header)"
elif [[ ! -d $extras/node_modules/argparse || ! -d $extras/node_modules/ts-postgres ]]; then
    nodeok=0
    note "$extras/node_modules lacks argparse or ts-postgres: npm install --prefix $extras argparse@2.0.1 csv-write-stream@2.0.0 pg-copy-streams@6.0.5 ts-postgres@1.3.1"
elif [[ ! -d $root/build/adapters/node/node_modules/pg ]]; then
    nodeok=0
    note "no build/adapters/node/node_modules/pg: scripts/install-deps.sh"
fi
# Their Go runner: theirs if built, else built here from their go.mod + go.sum
# (module mode, -mod=readonly: their pinned versions, checked against their
# go.sum) through the Go module proxy, once per copy of their tree.
go_bin=$msdir/_golang/pgbench_golang
go_why=""
go_runner() {
    [[ -x $go_bin || -n $go_why ]] && return 0
    local go=${GO:-} out=$root/build/magicstack log
    [[ -n $go ]] || { [[ -x /usr/local/go/bin/go ]] && go=/usr/local/go/bin/go || go=go; }
    if ! command -v "$go" >/dev/null; then
        go_why="Go not found ($go): their _golang runner needs Go 1.21 or later"
        return 0
    fi
    [[ -f $msdir/_golang/go.mod && -f $msdir/_golang/go.sum ]] || { go_why="$msdir/_golang has no go.mod + go.sum"; return 0; }
    mkdir -p "$out"
    # Built once per go.sum and main.go of theirs (copies beside the binary).
    if [[ ! -x $out/pgbench_golang ]] || ! cmp -s "$msdir/_golang/go.sum" "$out/.go.sum" 2>/dev/null ||
        ! cmp -s "$msdir/_golang/main.go" "$out/.main.go" 2>/dev/null; then
        note "building their Go runner (pgx, lib/pq) from $msdir/_golang into $out (the Go module proxy)"
        log=$out/build.log
        if ! (cd "$msdir/_golang" && env GOMODCACHE="$out/gomod" GOCACHE="$root/build/adapters/go/cache" \
            GOFLAGS="-mod=readonly -modcacherw" GOTOOLCHAIN=local GOWORK=off CGO_ENABLED=0 \
            "$go" build -o "$out/pgbench_golang" .) >"$log" 2>&1; then
            go_why="go build of their _golang runner failed (the Go module proxy: $("$go" env GOPROXY)): $(tail -n 1 "$log")"
            return 0
        fi
        cp "$msdir/_golang/go.sum" "$out/.go.sum"
        cp "$msdir/_golang/main.go" "$out/.main.go"
    fi
    go_bin=$out/pgbench_golang
}
for c in "${clist[@]}"; do
    case $c in
    asyncpg|psycopg)
        if ((pyok)); then
            d=asyncpg; [[ $c == psycopg ]] && d=psycopg3-async
            cmd[$c]="/usr/bin/python3 $msdir/_python/pgbench_python.py $d"
        fi ;;
    pg|pg-native)
        if ((nodeok)); then
            d=pg-js; [[ $c == pg-native ]] && d=pg-native
            cmd[$c]="node $msdir/_nodejs/index.js $d"
        fi ;;
    pgx|pq)
        go_runner
        d=pgx; [[ $c == pq ]] && d=libpq
        if [[ -x $go_bin ]]; then
            cmd[$c]="$go_bin $d"
        else
            note "$c skipped: $go_why"
        fi ;;
    *) die "--clients: unknown client $c (asyncpg, psycopg, pg, pg-native, pgx, pq)" ;;
    esac
done
((${#cmd[@]})) || die "no client of theirs can run here (see above)"

# shellcheck source=scripts/lib/local-server.sh
. "$root/scripts/lib/local-server.sh"
comparison_start "$prog" "$cpu" pgcb-vs-magicstack
tmp=$comparison_tmp
pghost=${PGHOST:-/var/run/postgresql} pgport=${PGPORT:-5432} pguser=${PGUSER:-postgres}
export NODE_PATH=$root/build/adapters/node/node_modules${extras:+:$extras/node_modules}

# Their query files with "args" defaulted to [] (their Node.js runner reads
# args.length and dies on 7-oneplusone.json, which has none).
for q in "${qlist[@]}"; do
    jq -c '.args //= []' "$msdir/queries/${qfile[$q]}.json" >"$tmp/$q.json"
done

# theirs RUN: every client and query once; one line per result in RUN.tsv:
# client query qps p50_ns p99_ns status
theirs() {
    local run=$1 c q rc out
    : >"$tmp/$run.tsv"
    for c in "${clist[@]}"; do
        [[ -n ${cmd[$c]:-} ]] || continue
        for q in "${qlist[@]}"; do
            note "theirs ($run): $c $q, ${warmup} s warm-up + ${duration} s, concurrency 10"
            out=$tmp/$run-$c-$q.json
            rc=0
            # shellcheck disable=SC2086  # cmd holds words
            taskset -c "$cpu" ${cmd[$c]%% *} ${cmd[$c]#* } --concurrency=10 \
                --duration="$duration" --warmup-time="$warmup" --output-format=json \
                --pghost="$pghost" --pgport="$pgport" --pguser="$pguser" "$tmp/$q.json" \
                >"$out" 2>"$tmp/$run-$c-$q.err" || rc=$?
            if ((rc == 3)); then
                printf '%s\t%s\t-\t-\t-\tunsupported\n' "$c" "$q" >>"$tmp/$run.tsv"
            elif ((rc != 0)) || ! jq -e .queries "$out" >/dev/null 2>&1; then
                note "their $c runner failed on $q (exit $rc): $(tail -n1 "$tmp/$run-$c-$q.err")"
                printf '%s\t%s\t-\t-\t-\tfailed\n' "$c" "$q" >>"$tmp/$run.tsv"
            else
                # their histogram: bin i = round(latency / 10 us) queries;
                # a percentile is the first bin whose running count reaches
                # p x queries, as i x 10 us
                jq -r --arg c "$c" --arg q "$q" '
                    .latency_stats as $h | ($h | add) as $n
                    | (reduce range(0; $h | length) as $i ({s: 0, p50: null, p99: null};
                        .s += $h[$i]
                        | if .p50 == null and .s >= 0.50 * $n then .p50 = $i else . end
                        | if .p99 == null and .s >= 0.99 * $n then .p99 = $i else . end)) as $p
                    | [$c, $q, (.queries / .duration), ($p.p50 * 10000), ($p.p99 * 10000), "ok"]
                    | @tsv' "$out" >>"$tmp/$run.tsv"
            fi
        done
    done
}

printf 'server: PostgreSQL %s; client CPU %s; MagicStack pgbench %s\n' \
    "$(psql -XAtc 'SHOW server_version')" "$cpu" \
    "$(git -C "$msdir" log -1 --format=%h 2>/dev/null || echo '(not a git checkout)')"
theirs before

only=libpq_pipeline,rawwire
for c in "${clist[@]}"; do
    [[ -n ${cmd[$c]:-} ]] || continue
    if ! grep -q "^\[driver\.${c//-/_}\]" "$root/conf/magicstack.ini"; then
        note "ours for $c skipped: conf/magicstack.ini has no [driver.${c//-/_}]"
        continue
    fi
    only+=,${c//-/_}
done
note "our runner: conf/magicstack.ini --only $only --query $queries -T $rsecs"
# the shipped file with its paths made absolute and the client CPU ours
sed -e "s|= \\.\\./|= $root/|" -e "s|^cpus *=.*|cpus = $cpu|" "$root/conf/magicstack.ini" >"$tmp/magicstack.ini"
rc=0
"$runner" -q -c "$tmp/magicstack.ini" --only "$only" \
    --query "$queries" -T "$rsecs" -o "$tmp/runner.json" >/dev/null 2>"$tmp/runner.err" || rc=$?
((rc == 0 || rc == 2)) || { cat "$tmp/runner.err" >&2; die "the runner failed (exit $rc)"; }
theirs after

# ours: driver query qps p50 p99 status shape. A batch counts as one query, as
# theirs does (ops_per_s: batches/s), not its 1000 INSERTs.
jq -r '.groups[] | .query as $q | (if .concurrency then "c10" else "1 conn" end) as $shape
       | (.transaction != null and .transaction != false) as $txn
       | .results[] | [(.driver | gsub("_"; "-")), $q,
          (if .status == "ok" then (if $txn then .ops_per_s else .queries_per_s end) else "-" end),
          (.percentiles_ns["50"] // "-"), (.percentiles_ns["99"] // "-"), .status, $shape]
       | @tsv' "$tmp/runner.json" >"$tmp/runner.tsv"

printf '\n%-14s %-15s %-6s %10s %10s %10s %8s | %9s %9s %9s | %9s %9s %9s\n' client query ours \
    "qps before" "qps ours" "qps after" "ours/th" "p50 bef" "p50 ours" "p50 aft" \
    "p99 bef" "p99 ours" "p99 aft"
awk -F'\t' '
    function us(v) { return v == "-" || v == "" ? "-" : sprintf("%.0fus", v / 1e3) }
    function n(v) { return v == "-" || v == "" ? "-" : sprintf("%.0f", v) }
    FILENAME ~ /before/ { k = $1 FS $2; bq[k] = $3; b50[k] = $4; b99[k] = $5; bs[k] = $6; next }
    FILENAME ~ /after/  { k = $1 FS $2; aq[k] = $3; a50[k] = $4; a99[k] = $5; next }
    {
        k = $1 FS $2
        th = (k in bq) && bq[k] != "-" && aq[k] != "-" ? (bq[k] + aq[k]) / 2 : 0
        ratio = th > 0 && $3 != "-" ? sprintf("%.3f", $3 / th) : "-"
        st = $6 == "ok" ? "" : "  (ours " $6 ")"
        if ((k in bs) && bs[k] != "ok") st = st "  (theirs " bs[k] ")"
        if (!(k in bq)) st = st "  (no MagicStack run)"
        printf "%-14s %-15s %-6s %10s %10s %10s %8s | %9s %9s %9s | %9s %9s %9s%s\n", $1, $2, $7,
               n(bq[k]), n($3), n(aq[k]), ratio, us(b50[k]), us($4), us(a50[k]),
               us(b99[k]), us($5), us(a99[k]), st
    }' "$tmp/before.tsv" "$tmp/after.tsv" "$tmp/runner.tsv"
jq -r '.groups[].results[] | select(.status != "ok") | "  \(.driver): \(.error // .status)"' \
    "$tmp/runner.json" | sort -u >"$tmp/notok.txt"
if [[ -s $tmp/notok.txt ]]; then
    printf '\nour runner, where a driver did not measure (the result'"'"'s reasons):\n'
    cat "$tmp/notok.txt"
fi
printf '\nqps: queries/s (a batch of 1000 INSERTs and a COPY of 10,000 rows count as one query,\n'
printf 'as MagicStack counts them). Theirs: 10 connections, closed loops, %s s after %s s of\n' \
    "$duration" "$warmup"
printf 'warm-up, once; ours (c10): 10 closed loops over a pool of 10, %s s per driver over the\n' "$rsecs"
printf 'execution orders; ours (1 conn): one connection (batch and copy: see docs/magicstack.md).\n'
printf 'ours/th: ours over the mean of their two runs. p50/p99: theirs from their 10 us\n'
printf 'histogram, ours from the runner (per query in c10 groups, per sample otherwise).\n'
printf 'Their Node.js batch runner times each INSERT of a batch, not the batch: its p50/p99\n'
printf 'for batch are per INSERT, its qps per batch.\n'
