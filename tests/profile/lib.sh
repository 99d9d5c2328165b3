# shellcheck shell=bash
# tests/profile/lib.sh -- sourced by the profile tests (tests/server/profile_*.sh):
# fail(), need_perf (perf present and allowed: a failure, never a skip), the
# invocation of fold.py the runner uses, and the folded/top.tsv checks. The
# caller sets prog (its name, for messages) and build (the build directory).
# shellcheck disable=SC2154

fail() { printf '%s: FAIL: %s\n' "$prog" "$*" >&2; exit 1; }
ok() { printf '%s: ok: %s\n' "$prog" "$*"; }

# perf and its Python scripting (Debian's linux-perf: scripts/install-deps.sh).
need_perf() {
    command -v perf >/dev/null 2>&1 || fail "perf not found (apt-get install linux-perf; scripts/install-deps.sh installs it)"
    perf version --build-options 2>/dev/null | grep -q 'libpython: \[ on' \
        || fail "this perf has no libpython: fold.py cannot run (Debian's linux-perf has it)"
}

# fold PERF_DATA OUT_PREFIX: what the runner runs (fold.py's header).
fold() {
    perf script --no-inline -i "$1" -s "$build/profile/fold.py" -- "$2" \
        || fail "perf script -s fold.py on $1 exited with status $?"
    [[ -f $2.folded && -f $2.top.tsv ]] || fail "fold.py wrote no $2.folded or $2.top.tsv"
}

# check_sums PREFIX: the folded counts add up to top.tsv's total, and so do
# its categories; prints the total.
check_sums() {
    local total folded cats
    total=$(awk -F'\t' 'NR == 1 && $1 == "total" { print $3 }' "$1.top.tsv")
    [[ $total =~ ^[0-9]+$ ]] || fail "$1.top.tsv: first line is not total: $(head -n 1 "$1.top.tsv")"
    folded=$(awk '{ s += $NF } END { print s + 0 }' "$1.folded")
    cats=$(awk -F'\t' '$1 == "category" { s += $3 } END { print s + 0 }' "$1.top.tsv")
    ((folded == total)) || fail "$1.folded counts add up to $folded, top.tsv's total is $total"
    ((cats == total)) || fail "$1.top.tsv's categories add up to $cats, its total is $total"
    LC_ALL=C sort -c "$1.folded" || fail "$1.folded is not sorted by stack (byte order)"
    printf '%s\n' "$total"
}
