#!/bin/sh
# adapters/go/install.sh OUTDIR -- the Go adapter's modules from the Go module
# proxy, at the versions of the committed adapters/go/go.mod + go.sum (pgx v5
# with pgxpool and puddle, lib/pq; module mode), downloaded by `go mod
# download` into OUTDIR/modcache (GOMODCACHE: never Go's global one), with
# the modules of every committed release lock (adapters/go/releases/NAME@
# RELEASE/go.mod + go.sum: pgx@v4.18.3), so that build.sh and release.sh
# build offline. Run by scripts/install-deps.sh with OUTDIR =
# build/adapters/go. GOPROXY and GOSUMDB are the machine's (`go env`); the
# checksums are go.sum's. A quick no-op when OUTDIR/modcache/.pgcb-go.sum
# holds the same locks. About 2 s from nothing here (the module proxy is
# near: 105 MB of modules and .mod files, pgx v4's unpruned graph included);
# the build (build.sh) then takes about 50 s the first time on 2 CPUs (Go's
# standard library and the modules compiled into build/adapters/go/cache),
# 1-2 s after.
#
# Go: GO, else /usr/local/go/bin/go (Go's own release, 1.25 or later: pgx
# v5.13's go.mod says go 1.25), else `go` on PATH; GOTOOLCHAIN=local (no
# toolchain download).
set -eu

prog=install.sh
here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 1 ] || { echo "usage: $prog OUTDIR" >&2; exit 2; }
mkdir -p "$1"
out=$(cd "$1" && pwd)
cache=$out/modcache
go=${GO:-}
if [ -z "$go" ]; then
    if [ -x /usr/local/go/bin/go ]; then go=/usr/local/go/bin/go; else go=go; fi
fi
command -v "$go" >/dev/null 2>&1 || {
    echo "$prog: Go not found ($go): install Go 1.25 or later from https://go.dev/dl/ into /usr/local/go" >&2
    exit 1
}

# One install at a time (make's two Go targets each run this script): the
# second waits, then finds the stamp.
exec 9>"$out/.install.lock"
flock 9
# The locks: the adapter's and every committed release's, in one stamp.
stamp=$out/.pgcb-go.sum.new.$$
{
    cat "$here/go.mod" "$here/go.sum"
    for d in "$here"/releases/*@*/; do
        [ -f "$d/go.sum" ] || continue
        printf '== %s\n' "$(basename "$d")"
        cat "$d/go.mod" "$d/go.sum"
    done
} >"$stamp"
if cmp -s "$stamp" "$cache/.pgcb-go.sum" 2>/dev/null; then
    rm -f "$stamp"
    exit 0
fi

echo "$prog: downloading the Go adapter's modules (go mod download) into $cache" >&2
mkdir -p "$cache"
# -modcacherw: a module cache rm -rf can remove.
# shellcheck source=adapters/go/release-src.sh
. "$here/release-src.sh"
download() { # DIR (the sources, with go.mod and go.sum) LOCK (for the message)
    (cd "$1" && env GOMODCACHE="$cache" GOFLAGS="-mod=readonly -modcacherw" GOTOOLCHAIN=local \
        GOWORK=off "$go" mod download) >"$out/.download.log" 2>&1 || {
        cat "$out/.download.log" >&2
        echo "$prog: go mod download could not fetch the modules of $2 from the Go module proxy ($(env GOTOOLCHAIN=local "$go" env GOPROXY)); see the messages above" >&2
        rm -f "$stamp"
        exit 1
    }
}
download "$here" adapters/go/go.sum
# A committed release lock: the sources release.sh builds against it (the
# adapter's common files and that client's), so that `go mod download`
# fetches what that build needs.
tmp=$out/.release-src
for d in "$here"/releases/*@*/; do
    [ -f "$d/go.sum" ] || continue
    name=$(basename "$d")
    gr_client "${name%@*}" "${name#*@}" || { echo "$prog: adapters/go/releases/$name: $GR_WHY" >&2; exit 1; }
    rm -rf "$tmp"
    mkdir -p "$tmp"
    gr_assemble "$here" "$tmp"
    cp "$d/go.mod" "$d/go.sum" "$tmp/"
    download "$tmp" "adapters/go/releases/$name/go.sum"
done
rm -rf "$tmp"
rm -f "$out/.download.log"
mv "$stamp" "$cache/.pgcb-go.sum"
