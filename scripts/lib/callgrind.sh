# shellcheck shell=bash disable=SC2034  # the cg_* results are read by the callers
# scripts/lib/callgrind.sh -- sourced by scripts/callgrind-block.sh (one
# group) and scripts/lib/instructions-ab.sh (every group of an A/B config,
# BASE and HEAD): the instructions per query of the runner's timed loop,
# counted by valgrind's callgrind. One piece of code for both, so that the
# A/B counts exactly what callgrind-block.sh counts.
#
#   cg_ini CONFIG OUT QUERIES [DEPTH QUERY [CONCURRENCY]]
#       Write OUT: CONFIG shaped for a callgrind run -- its relative paths made
#       absolute (they are relative to CONFIG, OUT is elsewhere); its [bench]
#       with time_ms = 1, queries = QUERIES (executed queries of the one
#       order), warmup_ms = 0, orders = 1, a batch timeout of 10 minutes and
#       no output, until*, profile or memory keys (every other key kept: the
#       protocol choices result_format, describe, sync change the client's
#       work); each suite's own warmup_ms dropped. Its [driver.*] sections are
#       kept (cg_count picks one). With DEPTH and QUERY, its suites are
#       replaced by one, [suite.cg]: depth DEPTH, query QUERY, and with
#       CONCURRENCY a concurrency suite.
#   cg_groups INI
#       One line per group of INI's suites, in the config's order (the order
#       the runner and `aggregate --ab` list them): SUITE QUERY DEPTH FN, FN
#       the function that is the timed loop (pgcb_measure_block, or
#       pgcb_measure_load for a suite with concurrency).
#   cg_count RUNNER INI DRIVER SUITE QUERY FN DIR
#       Run RUNNER -c INI under valgrind --tool=callgrind for that one group
#       (--suite SUITE --query QUERY) and one driver: DRIVER is a driver of
#       INI (its [driver.NAME] section and keys) or, when it has a / or ends
#       in .so, a driver file added as `--driver cg=DRIVER`. Collects only
#       inside FN (--toggle-collect) and zeroes the counts at each phase call
#       of the host (--zero-before=pgcb_hchild_phase: the warm-up's, then the
#       order's), so that what is left at the end is the timed blocks of the
#       order alone -- not the warm-up's first batch, which the runner also
#       times through FN. Sets cg_total (those instructions), cg_driver (the
#       part of them in the calls the runner made into the driver's .so:
#       run_batch and everything it calls -- the driver, libpq, libc; not the
#       loop's own clock reads and block bookkeeping, whose count varies with
#       how many blocks the runner cut the order into, which depends on
#       timing; scripts/lib/callgrind_count.py), cg_waits (the calls to
#       libc's read and wait wrappers -- recv, read, poll, epoll_wait ...: how
#       many times the client went to its socket, which depends on how much of
#       the reply had come each time), cg_queries (queries the
#       runner counted in the order: the result's "queries") and
#       cg_per_query (cg_driver / cg_queries, 2 decimals). The callgrind files
#       (callgrind.out.PID, one per process; the host's is the one with a
#       nonzero total), the INI's result (result.json) and the runner's log
#       (runner.log) are left in DIR, for callgrind_annotate. BENCH_TIME_MS
#       and BENCH_QUERIES are unset for it (they would override the INI).
#       Returns 1 with a one-line message in cg_error on a failure.
#
# Instruction counts do not depend on the machine's load: the same build,
# server and environment give the same count within a small spread that
# docs/instructions.md measures (what the client reads from its socket at
# each recv differs with timing). Valgrind runs one thread at a time: run one
# cg_count at a time.

cg_total=0 cg_driver=0 cg_waits=0 cg_queries=0 cg_per_query=0 cg_error=''
cg_lib=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)

cg_ini() {
    local config=$1 out=$2 queries=$3 depth=${4:-} query=${5:-} conc=${6:-} dir
    dir=$(cd -- "$(dirname -- "$config")" && pwd) || return 1
    awk -v dir="$dir" -v queries="$queries" -v depth="$depth" -v query="$query" -v conc="$conc" '
        function bench_keys() {
            print "time_ms = 1"; print "queries = " queries; print "warmup_ms = 0"
            print "orders = 1"; print "batch_timeout_ms = 600000"
        }
        /^[ \t]*\[/ {
            sect = $0; gsub(/^[ \t]*\[|\][ \t]*$/, "", sect)
            skip = depth != "" && sect ~ /^suite\./
            if (skip) next
            print
            if (sect == "bench") { bench_keys(); seen = 1 }
            next
        }
        skip { next }
        sect == "bench" && /^[ \t]*(time_ms|queries|warmup_ms|orders|batch_timeout_ms|output|until[a-z_]*|profile|memory|respawn)[ \t]*=/ { next }
        sect ~ /^suite\./ && /^[ \t]*warmup_ms[ \t]*=/ { next }
        match($0, /^[ \t]*(setup|path|adapters|module_dir|driver_dir)[ \t]*=[ \t]*/) {
            v = substr($0, RLENGTH + 1)
            if (v != "" && v !~ /^\//) $0 = substr($0, 1, RLENGTH) dir "/" v
        }
        { print }
        END {
            if (!seen) { print "[bench]"; bench_keys() }
            if (depth != "") {
                print "[suite.cg]"; print "depth = " depth; print "queries = " query
                if (conc != "") print "concurrency = " conc
            }
        }' "$config" >"$out"
}

cg_groups() {
    awk '
        function flush(   n, q, i) {
            if (suite == "") return
            n = split(qs, q, /[ \t,]+/)
            for (i = 1; i <= n; i++)
                if (q[i] != "") print suite, q[i], depth, (conc ? "pgcb_measure_load" : "pgcb_measure_block")
        }
        /^[ \t]*[;#]/ { next }
        /^[ \t]*\[/ {
            flush(); suite = ""
            if (match($0, /^[ \t]*\[suite\.[^\]]+\]/)) {
                suite = substr($0, RSTART, RLENGTH); sub(/^[ \t]*\[suite\./, "", suite); sub(/\]$/, "", suite)
                qs = ""; depth = 1; conc = 0
            }
            next
        }
        suite != "" && match($0, /^[ \t]*[a-z_]+[ \t]*=[ \t]*/) {
            key = $0; sub(/[ \t]*=.*/, "", key); gsub(/[ \t]/, "", key)
            v = substr($0, RLENGTH + 1); sub(/[ \t]*[;#].*$/, "", v)
            if (key == "queries") qs = v
            else if (key == "depth") depth = v
            else if (key == "concurrency") conc = 1
        }
        END { flush() }' "$1"
}

cg_count() {
    local runner=$1 ini=$2 driver=$3 suite=$4 query=$5 fn=$6 dir=$7 drvpath
    local -a sel
    cg_total=0 cg_driver=0 cg_waits=0 cg_queries=0 cg_per_query=0 cg_error=''
    if [[ $driver == */* || $driver == *.so ]]; then
        [[ -f $driver ]] || { cg_error="$driver: no such driver file"; return 1; }
        sel=(--driver "cg=$driver" --only cg)
        drvpath=$driver
    else
        sel=(--only "$driver")
        drvpath=$(awk -v s="[driver.$driver]" '
            /^[ \t]*\[/ { x = $0; gsub(/[ \t]/, "", x); in_s = x == s; next }
            in_s && /^[ \t]*path[ \t]*=/ { sub(/^[ \t]*path[ \t]*=[ \t]*/, ""); sub(/[ \t]+$/, ""); print; exit }' "$ini")
        [[ -n $drvpath ]] || { cg_error="$ini: no [driver.$driver] with a path"; return 1; }
    fi
    mkdir -p -- "$dir" || { cg_error="$dir: cannot create it"; return 1; }
    rm -f -- "$dir"/callgrind.out.* "$dir/result.json"
    if ! env -u BENCH_TIME_MS -u BENCH_QUERIES valgrind --tool=callgrind --trace-children=yes \
            --toggle-collect="$fn" --zero-before=pgcb_hchild_phase \
            --callgrind-out-file="$dir/callgrind.out.%p" -q \
            "$runner" -c "$ini" -o "$dir/result.json" -q "${sel[@]}" --suite "$suite" --query "$query" \
            >"$dir/runner.log" 2>&1; then
        cg_error="the runner failed under callgrind ($suite/$query, $driver): $(tail -n 1 "$dir/runner.log")"
        return 1
    fi
    local -a got
    read -r -a got < <(/usr/bin/python3 "$cg_lib/callgrind_count.py" "$dir/result.json" "$runner" \
        "$drvpath" "$dir"/callgrind.out.*)
    cg_total=${got[0]:-0} cg_driver=${got[1]:-0} cg_waits=${got[2]:-0} cg_queries=${got[3]:-0}
    ((cg_total > 0)) || { cg_error="no instructions collected in $fn ($suite/$query, $driver)"; return 1; }
    ((cg_driver > 0)) || { cg_error="no call from the runner into $drvpath counted ($suite/$query)"; return 1; }
    ((cg_queries > 0)) || { cg_error="the runner counted no valid queries ($suite/$query, $driver): see $dir/result.json"; return 1; }
    cg_per_query=$(awk -v t="$cg_driver" -v q="$cg_queries" 'BEGIN { printf "%.2f", t / q }')
}
