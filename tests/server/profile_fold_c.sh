#!/usr/bin/env bash
# pgcb-test: plain build only: the profile scripts are the same in every build
# fold.py on a real perf recording of a known C program:
#           tests/server/profile_fold_c.sh BUILD_DIR
# compiles a tiny program that busy-loops in pgcb_test_spin_target for 0.6 s
# of its own CPU time (-O1,
# no frame pointers), records it with `perf record -e cpu-clock --call-graph
# dwarf`, folds it as the runner does, and checks: that function has the most
# self samples (top.tsv's first function line), its stacks are whole
# (spin;_start;...;main;pgcb_test_spin_target), the folded counts and the
# categories add up to top.tsv's total; then an empty recording (events never
# enabled: -D -1) still gives both files with "total 0", and a wrong argument
# count exits 2. Needs perf (with libpython) and cc: missing is a failure.
# (--no-buildid-cache: the test's binaries are not copied into ~/.debug.)
set -euo pipefail
prog=profile_fold_c
(($# == 1)) || { printf 'usage: %s BUILD_DIR\n' "$0" >&2; exit 2; }
build=$(cd -- "$1" && pwd)
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/profile/lib.sh
. "$root/tests/profile/lib.sh"
need_perf
command -v cc >/dev/null 2>&1 || fail "cc not found"
[[ -f $build/profile/fold.py ]] || fail "$build/profile/fold.py not built (make)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pgcb-prof-c.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT
cat > "$tmp/spin.c" <<'C'
#include <stdlib.h>
#include <time.h>
__attribute__((noinline)) static unsigned long pgcb_test_spin_target(unsigned long n)
{
    volatile unsigned long x = 0;
    for (unsigned long i = 0; i < n; i++) x += i ^ (x >> 3);
    return x;
}
int main(int argc, char **argv)
{
    /* secs of the process's own CPU time, not of the wall: cpu-clock
     * samples its CPU time, so the count holds on a loaded machine. */
    double secs = argc > 1 ? atof(argv[1]) : 0.5;
    struct timespec t0, t;
    unsigned long s = 0;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    do {
        s += pgcb_test_spin_target(200000);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    } while ((double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
    return s == 42; /* uses s: the loop is not optimised away */
}
C
cc -O1 -g -fomit-frame-pointer -o "$tmp/spin" "$tmp/spin.c" || fail "cc failed"
perf record -q --no-buildid-cache -e cpu-clock -F 999 --call-graph dwarf -o "$tmp/spin.perf" -- "$tmp/spin" 0.6 \
    || fail "perf record failed (perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null); root or <= 1 needed)"
fold "$tmp/spin.perf" "$tmp/spin"
total=$(check_sums "$tmp/spin")
((total >= 100)) || fail "only $total samples in 0.6 s of CPU at 999 Hz"
first=$(awk -F'\t' '$1 == "function" { print $2 "\t" $3; exit }' "$tmp/spin.top.tsv")
[[ ${first%%$'\t'*} == "pgcb_test_spin_target (spin)" ]] \
    || fail "the top function is '${first%%$'\t'*}', not pgcb_test_spin_target (spin): $(cat "$tmp/spin.top.tsv")"
ok "pgcb_test_spin_target has the most self samples: ${first##*$'\t'} of $total"
whole=$(awk '$0 ~ /^spin;_start;.*;main;pgcb_test_spin_target [0-9]+$/ { s += $NF } END { print s + 0 }' "$tmp/spin.folded")
((whole * 2 > ${first##*$'\t'})) \
    || fail "only $whole samples of pgcb_test_spin_target in whole stacks (spin;_start;...;main;pgcb_test_spin_target): $(grep pgcb_test_spin_target "$tmp/spin.folded" | head -n 3)"
ok "whole DWARF stacks through libc's start: $whole samples spin;_start;...;main;pgcb_test_spin_target"
grep -v '^spin;' "$tmp/spin.folded" && fail "a stack does not start with the comm 'spin'"

# An empty recording: events disabled from the start (the runner's -D -1).
mkfifo "$tmp/ctl" "$tmp/ack"
perf record -q --no-buildid-cache -e cpu-clock -F 999 --call-graph dwarf -D -1 --control "fifo:$tmp/ctl,$tmp/ack" \
    -o "$tmp/empty.perf" -- "$tmp/spin" 0.2 || fail "perf record -D -1 failed"
fold "$tmp/empty.perf" "$tmp/empty"
[[ $(cat "$tmp/empty.top.tsv") == $'total\t\t0' ]] || fail "empty recording: top.tsv is '$(cat "$tmp/empty.top.tsv")', not 'total<TAB><TAB>0'"
[[ ! -s $tmp/empty.folded ]] || fail "empty recording: $tmp/empty.folded is not empty"
ok "a recording without samples: total 0, an empty folded file"

rc=0
perf script -i "$tmp/spin.perf" -s "$build/profile/fold.py" -- a b 2>"$tmp/err" || rc=$?
if ((rc != 2)) || ! grep -q '^usage: ' "$tmp/err"; then
    fail "two arguments: exit status $rc, not 2 with a usage line: $(cat "$tmp/err")"
fi
ok "a wrong argument count: usage, exit status 2"
