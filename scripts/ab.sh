#!/usr/bin/env bash
# scripts/ab.sh -- the A/B gate of one driver or client (issue 29,
# docs/regressions.md): BASE and HEAD, two builds of one driver, interleaved
# over the execution orders of ONE run on this machine, then compared by
# `aggregate --ab base:head`.
#
#   scripts/ab.sh [OPTIONS] --driver BASE.so HEAD.so
#   scripts/ab.sh [OPTIONS] --client CLIENT BASE_DIR HEAD_DIR
#   scripts/ab.sh [OPTIONS] --client CLIENT CLIENT@RELEASE CLIENT@RELEASE
#   scripts/ab.sh [OPTIONS] --driver HEAD.so --baseline NAME     (HEAD only)
#
# --driver: two .so files of a C driver (each is copied into the output
# directory and loaded from there: two objects even when they are one file).
# --client: a bridged client (node: pg, pg-native, postgres; with --adapter
# python: psycopg, asyncpg), BASE_DIR and HEAD_DIR two installs of it, each
# the bridge's module_dir (node: DIR/node_modules/CLIENT; python: DIR/MODULE).
# A side may instead be a release of the client's registry, CLIENT@RELEASE
# (pg@8.11.5, pgx@v4.18.3, pgjdbc@42.5.5) or @RELEASE: that side's driver is
# `client = CLIENT@RELEASE`, which the bridge installs into build/releases/
# (docs/clients.md, "Releases side by side"); every adapter has releases.
#
# Options:
#   --config FILE        the run's shape (default conf/ab.ini; no [driver.*])
#   --out DIR            where everything goes (default results/ab-UTCSTAMP)
#   --fail-above PCT     exit 3 when a group is shown slower by more than PCT %,
#                        or a side failed a group
#   --build CMD          first run CMD (sh -c) in each side's source directory;
#                        BASE and HEAD are then those directories, and the
#                        artifact is --artifact REL inside each
#   --artifact REL       the .so (--driver) or module dir (--client) inside a
#                        built source directory (default: .)
#   --adapter NAME       the bridge adapter of --client (node, python, go, rust,
#                        java; default node; module directories: node and python)
#   --option 'KEY = VALUE'  one more key for both [driver.*] sections (repeatable)
#   --save-baseline NAME store this run's result (HEAD's side: driver `head`) as
#                        the baseline NAME
#   --baseline NAME      compare HEAD with the stored baseline NAME: one side
#                        runs, unpaired (two runs, not interleaved)
#   --baseline-dir DIR   where baselines are (default $PGCB_BASELINE_DIR, else
#                        results/baselines)
#   --respawn WHEN       as_needed or order: [bench] respawn of the run (default
#                        order): each side's process -- a bridged client's
#                        adapter too -- is started anew and warmed up before
#                        each of its orders, so that what one process draws
#                        (its JIT's decisions, its code's and heap's layout)
#                        falls on one order, not on every order of a group
#                        (docs/regressions.md, "One process per order");
#                        as_needed: one process per side and group, faster
#                        (about 1 minute a run of conf/ab.ini instead of 2.5)
#                        but a per-group verdict may then see two processes
#                        differ where the builds do not
#   --allow-same         run even when BASE and HEAD are the same build (A/A)
#   --build-dir DIR      pgclientbench's build directory (default build)
#   --instructions       (--driver only) after the wall-time run, count each
#                        group's instructions per query of BASE and HEAD under
#                        callgrind (scripts/lib/instructions-ab.sh,
#                        docs/instructions.md): instructions.json and
#                        instructions.md, the table appended to comparison.md;
#                        the exit status stays the wall-time gate's
#   --instructions-queries N  queries per group and side under callgrind
#                        (default 300)
#   --fail-instructions PCT  (implies --instructions) also exit 3 when a group
#                        has more than PCT % more instructions, or could not be
#                        counted; it can fail a run, never pass one
#
# Exit status: 0 compared (the gate passed, or no gate); 1 nothing could be
# compared (bad input, a failed build, the runner wrote no result), one
# line naming why; 2 bad usage; 3 the gate failed. Writes into --out:
# ab.ini, result.json (the runner's), runner.log, comparison.md,
# comparison.json (the Markdown and JSON of `aggregate --ab`), bencher.json
# and gab.json (HEAD's figures for a history: docs/history.md); with
# --instructions also instructions.json, instructions.md, instructions.ini and
# callgrind/ (the callgrind files of each group and side).
set -u
shopt -s nullglob

TOP=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "ab.sh: $*" >&2; exit 1; }
usage() { echo "ab.sh: $*; see the header of scripts/ab.sh" >&2; exit 2; }

mode='' client='' adapter=node config=$TOP/conf/ab.ini out='' fail_above='' build_cmd='' artifact=.
save='' baseline='' baseline_dir=${PGCB_BASELINE_DIR:-$TOP/results/baselines} allow_same=0
build_dir=$TOP/build
instructions=0 instr_queries=300 fail_instr='' respawn=''
extra=()
args=()
while [ $# -gt 0 ]; do
    case $1 in
    --driver) mode=driver ;;
    --client) mode=client; [ $# -ge 2 ] || usage "--client needs a client"; client=$2; shift ;;
    --adapter|--config|--out|--fail-above|--build|--artifact|--option|--save-baseline|--baseline|--baseline-dir|--build-dir|--respawn)
        [ $# -ge 2 ] || usage "$1 needs a value"
        case $1 in
        --adapter) adapter=$2 ;; --config) config=$2 ;; --out) out=$2 ;;
        --fail-above) fail_above=$2 ;; --build) build_cmd=$2 ;; --artifact) artifact=$2 ;;
        --option) extra+=("$2") ;; --save-baseline) save=$2 ;; --baseline) baseline=$2 ;;
        --baseline-dir) baseline_dir=$2 ;; --build-dir) build_dir=$2 ;; --respawn) respawn=$2 ;;
        esac
        shift ;;
    --allow-same) allow_same=1 ;;
    --instructions) instructions=1 ;;
    --instructions-queries|--fail-instructions)
        [ $# -ge 2 ] || usage "$1 needs a value"
        case $1 in --instructions-queries) instr_queries=$2 ;; *) fail_instr=$2; instructions=1 ;; esac
        shift ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) usage "unknown option '$1'" ;;
    *) args+=("$1") ;;
    esac
    shift
done
[ -n "$mode" ] || usage "say --driver or --client CLIENT"
case $respawn in '') respawn=order ;; as_needed|order) ;;
    *) usage "--respawn '$respawn': as_needed or order" ;; esac
if [ $instructions = 1 ]; then
    [ $mode = driver ] || usage "--instructions counts C drivers only (--driver): a bridged client's runtime (V8, the JVM, Python) compiles, collects and hashes differently from run to run, so its instruction counts are not deterministic"
    [ -z "$baseline" ] || usage "--instructions counts BASE and HEAD in this run: not with --baseline"
    case $instr_queries in ''|0*|*[!0-9]*) usage "--instructions-queries '$instr_queries': a whole number >= 1" ;; esac
    [[ $fail_instr =~ ^([0-9]+(\.[0-9]+)?)?$ ]] || usage "--fail-instructions '$fail_instr': a percentage (e.g. 0.5)"
    command -v valgrind > /dev/null || die "--instructions: valgrind not found (scripts/install-deps.sh installs it)"
fi
want=2; [ -n "$baseline" ] && want=1
[ ${#args[@]} -eq $want ] || usage "expected $([ $want = 2 ] && echo 'BASE and HEAD' || echo 'HEAD alone (with --baseline)'), got ${#args[@]} argument(s)"
case $adapter in node|python|go|rust|java) ;; *) usage "--adapter '$adapter': node, python, go, rust or java" ;; esac
for n in "$save" "$baseline"; do
    case $n in ''|*[!A-Za-z0-9._-]*|.*) [ -z "$n" ] || usage "baseline name '$n': letters, digits, . _ - only" ;; esac
done
[ -f "$config" ] || die "$config: no such config"
for p in runner aggregate drivers/bridge.so; do
    [ -e "$build_dir/$p" ] || die "$build_dir/$p: not built (make)"
done
out=${out:-$TOP/results/ab-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out" || die "$out: cannot create it"
out=$(cd "$out" && pwd)
base_json=
if [ -n "$baseline" ]; then
    base_json=$baseline_dir/$baseline.json
    [ -f "$base_json" ] || die "baseline '$baseline': no $base_json (store one with --save-baseline $baseline)"
fi

sides=(base head); [ $want = 1 ] && sides=(head)
declare -A src
for i in "${!sides[@]}"; do src[${sides[$i]}]=${args[$i]}; done

# --build: each side's source directory built, its log kept.
if [ -n "$build_cmd" ]; then
    for s in "${sides[@]}"; do
        d=${src[$s]}
        [ -d "$d" ] || die "${s^^} $d: not a directory (with --build, give the source directories)"
        (cd "$d" && sh -c "$build_cmd") > "$out/build-$s.log" 2>&1 ||
            die "the build of ${s^^} ($d) failed: '$build_cmd' exited $?; see $out/build-$s.log"
        src[$s]=$d/$artifact
    done
fi

# A content hash of a file, or of every file under a directory (names included).
hash_of() {
    if [ -f "$1" ]; then sha256sum < "$1" | cut -c1-64
    else (cd "$1" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-64)
    fi
}

# The client's package in a module dir (what must be there).
client_pkg() {
    case $adapter/$client in
    node/pg-native) echo "node_modules/pg-native" ;;
    node/*) echo "node_modules/$client" ;;
    python/psycopg) echo psycopg ;; python/asyncpg) echo asyncpg ;;
    *) echo "$client" ;;
    esac
}

# A side that names a release (CLIENT@RELEASE or @RELEASE, not a directory).
declare -A release_of
for s in "${sides[@]}"; do
    a=${src[$s]}
    if [ $mode = client ] && [ ! -d "$a" ] && [[ $a == *@* ]]; then
        case $a in @*) a=$client$a ;; esac
        [ "${a%@*}" = "$client" ] || usage "${s^^} '$a': a release of another client than $client"
        release_of[$s]=$a
    fi
done

declare -A artifact_of hash
for s in "${sides[@]}"; do
    a=${src[$s]}
    if [ -n "${release_of[$s]:-}" ]; then
        artifact_of[$s]=${release_of[$s]}
        hash[$s]=$(printf 'release %s/%s\n' "$adapter" "${release_of[$s]}" | sha256sum | cut -c1-64)
        continue
    fi
    if [ $mode = client ]; then
        case $adapter in node|python) ;; *) usage "--adapter $adapter: give releases (CLIENT@RELEASE), not module directories" ;; esac
    fi
    if [ $mode = driver ]; then
        [ -f "$a" ] || die "${s^^} $a: no such driver file (did its build fail?)"
    else
        [ -d "$a" ] || die "${s^^} $a: no such module directory"
        pkg=$(client_pkg)
        [ -e "$a/$pkg" ] || die "${s^^} $a: no $pkg in it: not an install of client $client"
        a=$a/$pkg
    fi
    artifact_of[$s]=$(cd "$(dirname "$a")" && pwd)/$(basename "$a")
    hash[$s]=$(hash_of "$a")
done
if [ $want = 2 ] && [ "${hash[base]}" = "${hash[head]}" ] && [ $allow_same = 0 ]; then
    die "BASE and HEAD are the same build (sha256 ${hash[head]:0:16}...): nothing to compare (--allow-same runs it: an A/A)"
fi

# The INI: the config with its relative paths made absolute, then one
# section per side.
cfg_dir=$(cd "$(dirname "$config")" && pwd)
awk -v dir="$cfg_dir" -v respawn="$respawn" '
    /^[ \t]*\[/ { in_driver = ($0 ~ /^[ \t]*\[driver\./); in_bench = ($0 ~ /^[ \t]*\[bench\]/) }
    in_driver { next }
    in_bench && /^[ \t]*respawn[ \t]*=/ { next }
    in_bench && /^[ \t]*\[bench\]/ { print; print "respawn = " respawn; bench = 1; next }
    match($0, /^[ \t]*(setup|path|output|adapters|module_dir|driver_dir)[ \t]*=[ \t]*/) {
        v = substr($0, RLENGTH + 1)
        if (v != "" && v !~ /^\//) { print substr($0, 1, RLENGTH) dir "/" v; next }
    }
    { print }
    END { if (!bench) { print ""; print "[bench]"; print "respawn = " respawn } }' "$config" > "$out/ab.ini"
for s in "${sides[@]}"; do
    {
        echo
        echo "[driver.$s]"
        if [ $mode = driver ]; then
            cp "${artifact_of[$s]}" "$out/$s.so" || die "cannot copy ${artifact_of[$s]} to $out"
            echo "path = $out/$s.so"
        elif [ -n "${release_of[$s]:-}" ]; then
            echo "path = $build_dir/drivers/bridge.so"
            echo "adapter = $adapter"
            echo "client = ${release_of[$s]}"
        else
            echo "path = $build_dir/drivers/bridge.so"
            echo "adapter = $adapter"
            echo "client = $client"
            echo "module_dir = $(cd "${src[$s]}" && pwd)"
        fi
        for kv in "${extra[@]}"; do echo "$kv"; done
    } >> "$out/ab.ini"
done

for s in "${sides[@]}"; do echo "ab.sh: ${s^^} ${artifact_of[$s]} (sha256 ${hash[$s]:0:16})" >&2; done
echo "ab.sh: ${sides[*]} in one run: $out/ab.ini (runner log: $out/runner.log)" >&2
start=$(date +%s)
"$build_dir/runner" -c "$out/ab.ini" -o "$out/result.json" -P 30 > "$out/runner.log" 2>&1
runner_rc=$?
echo "ab.sh: the run took $(( $(date +%s) - start )) s (runner exit $runner_rc)" >&2
if [ ! -s "$out/result.json" ]; then
    tail -5 "$out/runner.log" >&2
    die "the runner wrote no result (exit $runner_rc): see $out/runner.log"
fi

if [ -n "$save" ]; then
    mkdir -p "$baseline_dir" || die "$baseline_dir: cannot create it"
    if ! cp "$out/result.json" "$baseline_dir/.$save.json.tmp" ||
        ! mv -f "$baseline_dir/.$save.json.tmp" "$baseline_dir/$save.json"; then
        die "cannot store baseline '$save' in $baseline_dir"
    fi
    echo "ab.sh: stored the baseline '$save': $baseline_dir/$save.json" >&2
fi

# bencher.json, gab.json: HEAD's figures and the ratios for a history (docs/history.md).
agg=("$build_dir/aggregate" --markdown "$out/comparison.md" --json "$out/comparison.json"
     --export-bencher "$out/bencher.json" --export-gab "$out/gab.json")
[ -n "$fail_above" ] && agg+=(--fail-above "$fail_above")
if [ -n "$baseline" ]; then
    agg+=(--ab head:head --ab-baseline "$base_json")
elif [ $want = 2 ]; then
    agg+=(--ab base:head)
fi
"${agg[@]}" "$out/result.json"
ab_rc=$?
[ $instructions = 1 ] || exit $ab_rc

# --instructions (docs/instructions.md): the instruction counts of BASE and
# HEAD in every group of this run's ab.ini, beside the wall-time verdict and
# never instead of it: a failed wall-time gate (or any error) keeps its exit
# status; only --fail-instructions can fail a run that the wall time passed.
echo "ab.sh: counting the instructions per query of BASE and HEAD under callgrind ($instr_queries queries per group and side)" >&2
instr=("$TOP/scripts/lib/instructions-ab.sh" --config "$out/ab.ini" --out "$out" --queries "$instr_queries"
       --runner "$build_dir/runner")
[ -n "$fail_instr" ] && instr+=(--fail-above "$fail_instr")
rm -f "$out/instructions.md" "$out/instructions.json"
start=$(date +%s)
echo
"${instr[@]}" base head
instr_rc=$?
echo "ab.sh: the instruction counts took $(( $(date +%s) - start )) s (exit $instr_rc)" >&2
{
    echo
    if [ -s "$out/instructions.md" ]; then
        cat "$out/instructions.md"
    else
        echo "#### Instructions per query (callgrind)"
        echo
        echo "Not counted: scripts/lib/instructions-ab.sh exited $instr_rc (its message is in the job's log)."
    fi
} >> "$out/comparison.md"
[ $ab_rc = 0 ] || exit $ab_rc
if [ $instr_rc != 0 ] && [ -n "$fail_instr" ]; then
    echo "ab.sh: the instructions gate failed (--fail-instructions $fail_instr)" >&2
    exit 3
fi
exit 0
