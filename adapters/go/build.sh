#!/bin/sh
# Build the Go adapter, offline, against Debian's packaged Go sources:
#
#   adapters/go/build.sh [OUT [DIR]]  (default OUT: build/adapters/go/pgcb-adapter-go)
#
# DIR: the main package to build, a directory of adapters/go (default .,
# the adapter); `adapters/go/build.sh build/adapters/go/pgcb-standalone-go
# standalone` builds the standalone pgx program (adapters/go/standalone/,
# scripts/compare-standalone.sh) the same way, with the same -X versions.
# Needs: apt-get install --no-install-recommends golang-go golang-github-jackc-pgx-v4-dev
# (Debian 12: Go 1.19, pgx 4.15.0 and its dependencies under /usr/share/gocode/src).
# GOPATH mode (GO111MODULE=off): module mode would want every module in
# pgx's go.mod graph, test and logging adapters included, and Debian does not
# package them all (github.com/Masterminds/semver/v3, github.com/jackc/pgmock).
# The library versions for `links` are those of the Debian packages that own
# the sources compiled (dpkg), without the Debian revision.
#
# Environment: PGCB_GOPATH (default /usr/share/gocode), GO (default go),
# GOCACHE (default: Go's own build cache, `go env GOCACHE` -- content-addressed,
# safe to share between checkouts, and what makes a second checkout's build
# take seconds instead of half a minute of compiling Go's standard library --
# when it can be written; else a directory cache/ beside OUT).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
out=${1:-build/adapters/go/pgcb-adapter-go}
pkg=${2:-.}
[ -d "$here/$pkg" ] || { echo "build.sh: $here/$pkg: no such directory" >&2; exit 1; }
gopath=${PGCB_GOPATH:-/usr/share/gocode}
go=${GO:-go}
outdir=$(dirname "$out")
mkdir -p "$outdir"
outabs=$(cd "$outdir" && pwd)/$(basename "$out")

command -v "$go" >/dev/null 2>&1 ||
    { echo "build.sh: '$go' not found (apt-get install golang-go)" >&2; exit 1; }
cache=${GOCACHE:-$("$go" env GOCACHE 2>/dev/null || true)}
case $cache in
/*) mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ] || cache= ;;
*) cache= ;; # "off" (no HOME), or nothing
esac
[ -n "$cache" ] || cache=$(cd "$outdir" && pwd)/cache
[ -d "$gopath/src/github.com/jackc/pgx/v4" ] ||
    { echo "build.sh: $gopath/src/github.com/jackc/pgx/v4 not found (apt-get install golang-github-jackc-pgx-v4-dev)" >&2; exit 1; }

# Upstream version of the package that owns FILE: 1:4.15.0-4+deb12u1 -> 4.15.0.
version_of() {
    pkg=$(dpkg-query -S "$1" 2>/dev/null | sed -n '1s/:.*//p') || pkg=
    v=
    [ -n "$pkg" ] && v=$(dpkg-query -W -f '${Version}' "$pkg" 2>/dev/null) || v=
    v=${v#*:}
    v=${v%-*}
    echo "${v:-unknown}"
}
src=$gopath/src/github.com/jackc
flags="-X main.pgxVersion=$(version_of "$src/pgx/v4/conn.go")"
flags="$flags -X main.pgconnVersion=$(version_of "$src/pgconn/pgconn.go")"
flags="$flags -X main.pgtypeVersion=$(version_of "$src/pgtype/pgtype.go")"
flags="$flags -X main.pgproto3Version=$(version_of "$src/pgproto3/v2/frontend.go")"

cd "$here/$pkg"
exec env GO111MODULE=off GOPATH="$gopath" GOCACHE="$cache" GOFLAGS= GOPROXY=off CGO_ENABLED=0 \
    "$go" build -trimpath -ldflags "$flags" -o "$outabs" .
