#!/bin/sh
# adapters/go/release.sh CLIENT RELEASE DEST -- the Go adapter built against
# one release of a Go client, for `client = pgx@v4.18.3` (drivers/bridge/
# br_release.c states the contract; adapters/release-lib.sh the shared
# steps): DEST/adapter, a static binary with the adapter's common files and
# that client's only (release-src.sh), run by the bridge instead of the
# shipped pgcb-adapter-go. CLIENT: pgx (RELEASE v4.x.y: the adapter's pgx v4
# client, _pgxv4/; v5.x.y: the shipped pgx client) or pq (lib/pq).
#
# Pinned: a release with a committed lock (adapters/go/releases/CLIENT@
# RELEASE/go.mod + go.sum: those of conf/releases.ini) builds offline
# (GOPROXY=off, -mod=readonly) from the module cache install.sh filled
# (build/adapters/go/modcache). Any other release is resolved through the Go
# module proxy (the machine's GOPROXY): `go get MODULE@RELEASE` then `go mod
# tidy` in DEST/src, whose go.mod + go.sum stay there as its lock; an
# unknown release fails with the proxy's answer, on one line.
#
# The sources: the checkout's adapters/go, found from this script's place
# (build/adapters/go/release.sh -> ../../../adapters/go, the Makefile copying
# release*.sh and releases/ there), or PGCB_GO_SOURCES. Caches: GOMODCACHE
# build/adapters/go/modcache, GOCACHE build/adapters/go/cache (beside this
# script). About 20 s for a release whose modules are cached (the client's
# packages compiled; the standard library is in the cache from the adapter's
# build).
set -eu
# shellcheck source=adapters/release-lib.sh
. "$(dirname "$0")/../release-lib.sh"
# shellcheck source=adapters/go/release-src.sh
. "$(dirname "$0")/release-src.sh"
rl_begin "$@"
RL_TMP=$(cd "$RL_TMP" && pwd) # absolute: the build runs in $RL_TMP/src

gr_client "$RL_CLIENT" "$RL_RELEASE" || rl_unknown "Go module proxy: $GR_WHY"
version=v${RL_RELEASE#v}
src=${PGCB_GO_SOURCES:-$RL_HERE/../../../adapters/go}
if [ ! -f "$src/go.mod" ] || [ ! -f "$src/main.go" ]; then
    rl_fail "go: the Go adapter's sources are not at $src (set PGCB_GO_SOURCES to the checkout's adapters/go)"
fi
src=$(cd "$src" && pwd)
gr_go
command -v "$GO" >/dev/null 2>&1 || rl_fail "go: Go not found ($GO): install Go 1.25 or later into /usr/local/go"

dir=$RL_TMP/src
mkdir -p "$dir"
gr_assemble "$src" "$dir"
export GOMODCACHE="$RL_HERE/modcache" GOCACHE="$RL_HERE/cache" GOTOOLCHAIN=local GOWORK=off CGO_ENABLED=0
mkdir -p "$GOMODCACHE" "$GOCACHE"
log=$RL_TMP/.go.log
if [ -n "$RL_PINNED" ]; then
    cp "$RL_PINNED/go.mod" "$RL_PINNED/go.sum" "$dir/"
    export GOPROXY=off GOFLAGS="-mod=readonly -modcacherw -buildvcs=false"
else
    proxy=$("$GO" env GOPROXY)
    printf 'module pgclientbench/adapters/go/release\n\ngo 1.25\n' >"$dir/go.mod"
    export GOFLAGS="-mod=mod -modcacherw -buildvcs=false"
    if ! (cd "$dir" && "$GO" get "$GR_MODULE@$version") >"$log" 2>&1; then
        cat "$log" >&2
        # go's reason: its last "go: " line that is not progress, with the
        # proxy's "server response" after it.
        why=$(grep '^go: ' "$log" | grep -Ev '^go: (downloading|finding|found|added|upgraded) ' | tail -n 1 |
            sed -E 's/^go: //; s/reading [^ ]+: //')
        resp=$(sed -n 's/^[[:space:]]*server response: *//p' "$log" | head -n 1)
        why="$why${resp:+ ($resp)}"
        # The proxy has no such version: the config is wrong. (A 403, "not
        # available", is a proxy that does not serve it: it cannot tell.)
        if grep -qE 'unknown revision|invalid version|no matching versions|404 Not Found|410 Gone' "$log"; then
            rl_unknown "Go module proxy ($proxy): ${why:-go get $GR_MODULE@$version: no such version}"
        fi
        rl_fail "Go module proxy ($proxy): ${why:-go get $GR_MODULE@$version failed}"
    fi
    if ! (cd "$dir" && "$GO" mod tidy) >"$log" 2>&1; then
        cat "$log" >&2
        rl_fail "Go module proxy ($proxy): go mod tidy for $GR_MODULE@$version: $(tail -n 1 "$log")"
    fi
    export GOPROXY=off GOFLAGS="-mod=readonly -modcacherw -buildvcs=false"
fi
flags=
for kv in $GR_FLAGS; do
    v=$(cd "$dir" && "$GO" list -m -f '{{.Version}}' "${kv#*=}" 2>/dev/null) || v=
    v=${v#v}
    flags="$flags -X main.${kv%%=*}=${v:-unknown}"
done
if ! (cd "$dir" && "$GO" build -trimpath -ldflags "$flags" -o "$RL_TMP/adapter" .) >"$log" 2>&1; then
    cat "$log" >&2
    hint=
    [ -n "$RL_PINNED" ] && hint=" (offline: adapters/go/install.sh downloads the committed locks' modules)"
    rl_fail "go build of $RL_CLIENT@$RL_RELEASE failed$hint: $(tail -n 1 "$log")"
fi
rm -f "$log"
rl_commit
