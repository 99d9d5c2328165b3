#!/usr/bin/env bash
# scripts/lib/instructions-ab.sh -- the instruction-count A/B of a C driver
# (issue 43, docs/instructions.md): for every group of an A/B config (each
# suite x each of its queries, in the config's order), the instructions per
# query of BASE's and of HEAD's timed loop under callgrind, their ratio and
# a verdict against the determinism threshold (per query: the instructions
# of the calls the timed loop makes into the driver -- run_batch and all it
# calls -- as scripts/lib/callgrind.sh counts them). scripts/ab.sh --instructions
# runs it after the wall-time run, on that run's ab.ini; it also runs alone:
#
#   scripts/lib/instructions-ab.sh [OPTIONS] BASE HEAD
#
# BASE, HEAD: a driver of the config ([driver.NAME]: ab.sh's base and head,
# with their keys) or a driver file (a path with a / or ending in .so).
# Options:
#   --config FILE      the groups, queries, server and protocol keys (default
#                      conf/ab.ini; its [bench] budget is replaced: one order,
#                      no warm-up, --queries queries)
#   --queries N        executed queries per group and side (default 300)
#   --out DIR          where instructions.json, instructions.md and the
#                      callgrind files (callgrind/SUITE.QUERY.SIDE/) go
#                      (default: a new results/instructions-UTCSTAMP)
#   --threshold PCT    the base threshold (default 0.1)
#   --fail-above PCT   exit 3 when a group reads "more instructions" by more
#                      than PCT %, or a group could not be counted
#   --runner FILE      the runner (default build/runner beside this checkout)
#
# Verdict per group: "more instructions" when HEAD / BASE > 1 + t, "fewer
# instructions" when < 1 - t, else "no change". t, the group's determinism
# threshold: 0.1 % where both sides went to the socket (recv, poll ...) as
# often per query -- two runs of one build then differ by a few instructions
# in a million (docs/instructions.md) -- widened by 500 instructions per extra
# trip to the socket where they did not (a pipelining driver reads replies as
# they come: timing; scripts/lib/instructions_report.py).
# Exit status: 0 counted (and --fail-above passed, or none); 1 a group or the
# whole A/B could not be counted (one line naming why; the table says which
# group); 2 bad usage; 3 --fail-above failed (before 1). Prints the Markdown
# table; writes instructions.ini (the config it ran), instructions.tsv (the
# counts), instructions.json, instructions.md into --out.
set -uo pipefail

prog=instructions-ab.sh
here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
top=$(cd -- "$here/../.." && pwd)
# shellcheck source=scripts/lib/callgrind.sh
. "$here/callgrind.sh"
die() { printf '%s: %s\n' "$prog" "$*" >&2; exit 1; }
usage() { printf '%s: %s; see the header of scripts/lib/instructions-ab.sh\n' "$prog" "$*" >&2; exit 2; }

config=$top/conf/ab.ini queries=300 out='' threshold='' fail_above='' runner=$top/build/runner
args=()
while (($#)); do
    case $1 in
    --config|--queries|--out|--threshold|--fail-above|--runner)
        (($# >= 2)) || usage "$1 needs a value"
        case $1 in
        --config) config=$2 ;; --queries) queries=$2 ;; --out) out=$2 ;;
        --threshold) threshold=$2 ;; --fail-above) fail_above=$2 ;; --runner) runner=$2 ;;
        esac
        shift ;;
    -*) usage "unknown option '$1'" ;;
    *) args+=("$1") ;;
    esac
    shift
done
((${#args[@]} == 2)) || usage "expected BASE and HEAD, got ${#args[@]} argument(s)"
[[ $queries =~ ^[1-9][0-9]*$ ]] || usage "--queries '$queries': a whole number >= 1"
for v in "$threshold" "$fail_above"; do
    [[ -z $v || $v =~ ^[0-9]+(\.[0-9]+)?$ ]] || usage "'$v': a percentage (e.g. 0.5)"
done
[[ -f $config ]] || die "$config: no such config"
[[ -x $runner ]] || die "$runner: no runner (make)"
command -v valgrind >/dev/null || die "valgrind not found (scripts/install-deps.sh installs it)"
out=${out:-$top/results/instructions-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p -- "$out" || die "$out: cannot create it"
out=$(cd -- "$out" && pwd)

cg_ini "$config" "$out/instructions.ini" "$queries" || die "cannot read $config"
mapfile -t groups < <(cg_groups "$out/instructions.ini")
((${#groups[@]})) || die "$config: no [suite.*] with queries"

# One line per group and side (instructions_report.py reads them): SUITE QUERY
# DEPTH FN SIDE DRIVER_INSTRUCTIONS LOOP_INSTRUCTIONS WAITS QUERIES (zeros: not counted).
start=$(date +%s)
bad=0
: >"$out/instructions.tsv"
for g in "${groups[@]}"; do
    read -r suite query depth fn <<<"$g"
    for side in base head; do
        drv=${args[0]}; [[ $side == head ]] && drv=${args[1]}
        if cg_count "$runner" "$out/instructions.ini" "$drv" "$suite" "$query" "$fn" \
                "$out/callgrind/$suite.$query.$side"; then
            printf '%s: %s / %s / depth %s, %s: %s instructions per query\n' "$prog" "$suite" "$query" \
                "$depth" "${side^^}" "$cg_per_query" >&2
        else
            printf '%s: %s\n' "$prog" "$cg_error" >&2
            bad=1
        fi
        printf '%s %s %s %s %s %s %s %s %s\n' "$suite" "$query" "$depth" "$fn" "$side" "$cg_driver" \
            "$cg_total" "$cg_waits" "$cg_queries" >>"$out/instructions.tsv"
    done
done
seconds=$(($(date +%s) - start))

/usr/bin/python3 "$here/instructions_report.py" "$out" "${args[0]}" "${args[1]}" "$queries" "$seconds" \
    "$threshold" "$fail_above" "$(valgrind --version)"
rc=$?
((rc == 0 || rc == 3)) || die "could not write the report into $out (python3 exited $rc)"
((bad == 0)) || printf '%s: some groups could not be counted: see %s/instructions.md\n' "$prog" "$out" >&2
((rc == 3)) && exit 3
((bad == 0)) || exit 1
exit 0
