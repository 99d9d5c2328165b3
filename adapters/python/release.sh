#!/bin/sh
# adapters/python/release.sh CLIENT RELEASE DEST -- one release of a Python
# client from PyPI into DEST, for `client = psycopg@3.1.20` (drivers/bridge/
# br_release.c states the contract; adapters/release-lib.sh the shared
# steps). The adapter then puts DEST first on sys.path (hello's module_dir,
# pgcb_adapter/clients/__init__.py use_module_dir); everything else, the
# interpreter and the adapter's other packages (psycopg_pool, uvloop), stays
# the venv's (build/adapters/python/venv, adapters/python/install.sh).
#
#   psycopg, psycopg_python   psycopg==RELEASE, with psycopg-binary==RELEASE
#                             (its C core) when PyPI has a wheel of that
#                             release for this Python; without one (3.1.7
#                             has none) the release runs as installed, pure
#                             Python, and links say pq.__impl__ python.
#                             psycopg_python never takes the C core.
#   asyncpg                   asyncpg==RELEASE
#   psycopg2                  psycopg2-binary==RELEASE (the module psycopg2)
#
# `pip install --target DEST` by the venv's pip, wheels only, its cache
# build/adapters/python/pip-cache. Pinned: a release with a committed lock
# (adapters/python/releases/CLIENT@RELEASE/requirements.txt, pip-compile
# --generate-hashes from the requirements.in beside it) is installed from it
# with --require-hashes --no-deps; any other is resolved from PyPI, and
# `pip freeze --path DEST` is left in DEST/requirements.txt.
set -eu
# shellcheck source=adapters/release-lib.sh
. "$(dirname "$0")/../release-lib.sh"
rl_begin "$@"

case $RL_CLIENT in
psycopg | psycopg_python) set -- "psycopg==$RL_RELEASE" ;;
asyncpg) set -- "asyncpg==$RL_RELEASE" ;;
psycopg2) set -- "psycopg2-binary==$RL_RELEASE" ;;
*) rl_unknown "pip: $RL_CLIENT is not a client of the python adapter (psycopg, psycopg_python, asyncpg, psycopg2)" ;;
esac
py=$RL_HERE/venv/bin/python3
[ -x "$py" ] || rl_fail "pip: no $py (scripts/install-deps.sh makes the Python adapter's venv): it installs $RL_CLIENT@$RL_RELEASE"

log=$RL_TMP/.pip.log
# pip ARGS...: the venv's pip installing into RL_TMP; 0, or 1 with its
# messages in $log.
pip() {
    PIP_CACHE_DIR=$RL_HERE/pip-cache PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 \
        "$py" -m pip install --quiet --target "$RL_TMP" --only-binary=:all: "$@" </dev/null >"$log" 2>&1
}
# why: pip's reason, one line ("No matching distribution found for psycopg==99.0").
why() {
    w=$(grep -E '^ERROR: No matching distribution' "$log" | head -n 1)
    [ -n "$w" ] || w=$(grep -E '^ERROR:' "$log" | head -n 1)
    printf '%s\n' "${w#ERROR: }"
}

# pip_failed WHAT [PACKAGE]: pip's messages on stderr, then exit 2
# (rl_unknown) when PyPI's index lists no release RL_RELEASE of PACKAGE (its
# simple API, JSON: pip's own "from versions" lists only the releases with a
# build for this Python), else 1 (a release PyPI has that installs nothing
# here, or PyPI not reached: it cannot tell).
pip_failed() {
    cat "$log" >&2
    known=
    if [ -n "${2:-}" ]; then
        # 2: PyPI lists no such release; 3: it does; else it could not say.
        "$py" - "$2" "$RL_RELEASE" <<'PY' 2>/dev/null || known=$?
import json, sys, urllib.request
req = urllib.request.Request("https://pypi.org/simple/%s/" % sys.argv[1],
                             headers={"Accept": "application/vnd.pypi.simple.v1+json"})
with urllib.request.urlopen(req, timeout=30) as r:
    versions = json.load(r).get("versions")
sys.exit(1 if versions is None else 3 if sys.argv[2] in versions else 2)
PY
    fi
    [ "$known" = 2 ] && rl_unknown "$1: $(why) (PyPI has no release $RL_RELEASE of $2)"
    [ "$known" = 3 ] && rl_fail "$1: $(why) (PyPI has $2 $RL_RELEASE, but no wheel of it for this Python and platform)"
    rl_fail "$1: $(why)"
}

if [ -n "$RL_PINNED" ]; then
    if ! pip --require-hashes --no-deps -r "$RL_PINNED/requirements.txt"; then
        pip_failed "pip (installing the lock releases/$RL_CLIENT@$RL_RELEASE/requirements.txt from PyPI)"
    fi
else
    core=
    [ "$RL_CLIENT" = psycopg ] && core="psycopg-binary==$RL_RELEASE"
    if [ -n "$core" ] && pip "$@" "$core"; then
        :
    elif [ -n "$core" ] && ! grep -q "No matching distribution found for psycopg-binary" "$log"; then
        pip_failed "pip (PyPI)" "${1%%==*}"
    elif ! pip "$@"; then
        pip_failed "pip (PyPI)" "${1%%==*}"
    fi
    "$py" -m pip freeze --path "$RL_TMP" >"$RL_TMP/requirements.txt" 2>/dev/null || :
fi
rm -f "$log"
mod=$RL_CLIENT
[ "$mod" = psycopg_python ] && mod=psycopg
[ -d "$RL_TMP/$mod" ] || rl_fail "pip: $RL_CLIENT@$RL_RELEASE installed no $mod/ into $RL_DEST"
rl_commit
