# shellcheck shell=sh disable=SC2034
# adapters/release-lib.sh -- what every adapter's release.sh shares (sourced,
# not run): the contract of drivers/bridge/br_release.c, once.
#
#   . "$(dirname "$0")/../release-lib.sh"
#   rl_begin "$@"        # CLIENT RELEASE DEST: checks the arguments, takes
#                        # DEST's lock (concurrent bridges wait), exits 0 at
#                        # once when DEST/.pgcb-release is there; then
#                        # $RL_CLIENT $RL_RELEASE $RL_DEST, and $RL_TMP: an
#                        # empty directory beside DEST to install into
#   ... install into "$RL_TMP" (the adapter's own steps) ...
#   rl_unknown "npm: No matching version found for pg@99.0.0"
#                        # the registry has no such release (or no such
#                        # client): the one line the bridge quotes; exits 2,
#                        # and the bridge refuses the run (bad input)
#   rl_fail "pip (PyPI): no wheel of psycopg-binary 3.1.2 for cp311"
#                        # the release exists but did not install or build
#                        # here, or the registry could not be asked: exits 1,
#                        # and only this driver's cells fail
#   rl_commit            # stamps RL_TMP, renames it to DEST; exits 0
#
# Whatever the install prints goes to the caller's stdout/stderr (the bridge
# keeps the tail and quotes only the last line on a failure). Adapters whose
# committed lockfile for a release lives in adapters/LANG/releases/CLIENT@RELEASE/
# find it as "$RL_PINNED" (empty when none is committed: the release is then
# resolved from the registry, and its lock written into DEST).

rl_fail() {
    printf '%s\n' "$*"
    exit 1
}

rl_unknown() {
    printf '%s\n' "$*"
    exit 2
}

rl_begin() {
    [ $# -eq 3 ] || rl_fail "usage: release.sh CLIENT RELEASE DEST"
    RL_CLIENT=$1
    RL_RELEASE=$2
    RL_DEST=$3
    mkdir -p "$(dirname "$RL_DEST")" || rl_fail "cannot create $(dirname "$RL_DEST")"
    exec 9>"$RL_DEST.lock" || rl_fail "cannot open $RL_DEST.lock"
    flock 9 || rl_fail "cannot lock $RL_DEST.lock"
    [ -e "$RL_DEST/.pgcb-release" ] && exit 0
    rm -rf "$RL_DEST"
    RL_TMP=$RL_DEST.tmp.$$
    rm -rf "$RL_TMP"
    mkdir -p "$RL_TMP" || rl_fail "cannot create $RL_TMP"
    trap 'rm -rf "$RL_TMP"' EXIT
    RL_PINNED=
    RL_HERE=$(cd "$(dirname "$0")" && pwd)
    if [ -d "$RL_HERE/releases/$RL_CLIENT@$RL_RELEASE" ]; then
        RL_PINNED=$RL_HERE/releases/$RL_CLIENT@$RL_RELEASE
    fi
}

rl_commit() {
    printf '%s@%s\n' "$RL_CLIENT" "$RL_RELEASE" >"$RL_TMP/.pgcb-release"
    mv "$RL_TMP" "$RL_DEST" || rl_fail "cannot rename $RL_TMP to $RL_DEST"
    trap - EXIT
    exit 0
}
