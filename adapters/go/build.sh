#!/bin/sh
# Build the Go adapter in module mode, offline, from the committed go.mod +
# go.sum and the module cache adapters/go/install.sh filled:
#
#   adapters/go/build.sh [OUT [DIR]]  (default OUT: build/adapters/go/pgcb-adapter-go)
#   adapters/go/build.sh --vet        gofmt -l and go vet of the adapter and the
#                                     standalone program, the same way (make lint)
#   adapters/go/build.sh --test [OUT] the adapter's self-test against the shared
#                                     vectors (vectors_test.go), a test binary
#                                     (go test -c; default OUT:
#                                     build/adapters/go/pgcb-vectors-go), run
#                                     from the checkout's top: OUT [-test.v]
#
# DIR: the main package to build, a directory of adapters/go (default .,
# the adapter); `adapters/go/build.sh build/adapters/go/pgcb-standalone-go
# standalone` builds the standalone pgx and pq program (adapters/go/standalone/,
# scripts/compare-standalone.sh) the same way, with the same -X versions.
# Runs, in adapters/go/:
#
#   GOMODCACHE=<modcache> GOFLAGS="-mod=readonly -buildvcs=false" GOPROXY=off GOTOOLCHAIN=local \
#   CGO_ENABLED=0 go build -trimpath -ldflags "-X main.pgxVersion=5.13.0 ..." -o OUT ./DIR
#
# the versions read by `go list -m` from the module graph compiled (never
# typed in). CGO_ENABLED=0: a static binary, no C compiler needed.
#
# Environment: GO (default /usr/local/go/bin/go when it exists, else go:
# Go 1.25 or later), PGCB_GOMODCACHE (default build/adapters/go/modcache of
# this checkout, where install.sh downloads), PGCB_GOCACHE (Go's build
# cache; default build/adapters/go/cache of this checkout: nothing of the
# project's is compiled into a global cache).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
vet=0
test=0
if [ "${1:-}" = --vet ]; then
    vet=1
    shift
elif [ "${1:-}" = --test ]; then
    test=1
    shift
fi
if [ "$test" = 1 ]; then out=${1:-build/adapters/go/pgcb-vectors-go}; else out=${1:-build/adapters/go/pgcb-adapter-go}; fi
pkg=${2:-.}
[ -d "$here/$pkg" ] || { echo "build.sh: $here/$pkg: no such directory" >&2; exit 1; }
go=${GO:-}
if [ -z "$go" ]; then
    if [ -x /usr/local/go/bin/go ]; then go=/usr/local/go/bin/go; else go=go; fi
fi
command -v "$go" >/dev/null 2>&1 ||
    { echo "build.sh: Go not found ($go): install Go 1.25 or later from https://go.dev/dl/ into /usr/local/go" >&2; exit 1; }
outdir=$(dirname "$out")
mkdir -p "$outdir"
outabs=$(cd "$outdir" && pwd)/$(basename "$out")
modcache=${PGCB_GOMODCACHE:-$root/build/adapters/go/modcache}
cache=${PGCB_GOCACHE:-$root/build/adapters/go/cache}
mkdir -p "$cache"
[ -f "$modcache/.pgcb-go.sum" ] ||
    { echo "build.sh: no Go modules in $modcache: run adapters/go/install.sh $root/build/adapters/go (or scripts/install-deps.sh)" >&2; exit 1; }

cd "$here"
if [ "$vet" = 1 ]; then
    bad=$(gofmt -l .)
    [ -z "$bad" ] || { echo "build.sh: not gofmt-formatted: $bad" >&2; exit 1; }
fi
export GOMODCACHE="$modcache" GOCACHE="$cache" GOFLAGS="-mod=readonly -buildvcs=false" GOPROXY=off GOSUMDB=off \
    GOTOOLCHAIN=local GOWORK=off CGO_ENABLED=0
# The version of module MOD in the graph compiled, without its leading v.
version_of() {
    v=$("$go" list -m -f '{{.Version}}' "$1" 2>/dev/null) || v=
    v=${v#v}
    echo "${v:-unknown}"
}
flags="-X main.pgxVersion=$(version_of github.com/jackc/pgx/v5)"
flags="$flags -X main.puddleVersion=$(version_of github.com/jackc/puddle/v2)"
flags="$flags -X main.pqVersion=$(version_of github.com/lib/pq)"
[ "$vet" = 0 ] || exec "$go" vet . ./standalone
[ "$test" = 0 ] || exec "$go" test -c -trimpath -ldflags "$flags" -o "$outabs" .
exec "$go" build -trimpath -ldflags "$flags" -o "$outabs" "./$pkg"
