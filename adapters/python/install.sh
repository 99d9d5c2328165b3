#!/bin/sh
# adapters/python/install.sh OUTDIR -- the Python adapter's clients from PyPI:
# a virtual environment OUTDIR/venv (build/adapters/python/venv) made by
# Debian's /usr/bin/python3 -m venv (Python 3.11, python3-venv: on every
# Debian machine and in docker/Dockerfile, the interpreter the adapter always
# ran under), filled with
#
#   pip install --require-hashes --no-deps -r adapters/python/requirements.txt
#
# the hashed lock pip-compile made from requirements.in (how to renew it is
# in that file): psycopg 3.3 with psycopg-binary (its C core) and
# psycopg_pool, asyncpg, uvloop, psycopg2-binary, and what they need. Wheels
# only: nothing is compiled. pip's cache is OUTDIR/pip-cache (release.sh
# shares it); nothing goes outside OUTDIR. scripts/install-deps.sh runs it;
# bridge.so runs the adapter with OUTDIR/venv/bin/python3 (br_config.c).
#
# A quick no-op when OUTDIR/venv/.pgcb-lock is a copy of the lock it was
# filled from (a changed lock makes a new venv). From nothing: about 10 s
# here (~14 MB of wheels from PyPI; a venv of 76 MB). Never prompts; a
# failure is one last line naming PyPI and the lockfile, exit 1.
set -eu
prog=install.sh
[ $# -eq 1 ] || { echo "usage: adapters/python/install.sh OUTDIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
lock=$here/requirements.txt
out=$1
venv=$out/venv
python=/usr/bin/python3

fail() {
    printf '%s: %s\n' "$prog" "$*" >&2
    exit 1
}

[ -f "$lock" ] || fail "no $lock"
if [ -x "$venv/bin/python3" ] && cmp -s "$lock" "$venv/.pgcb-lock"; then
    exit 0
fi
[ -x "$python" ] || fail "$python not found (apt-get install python3 python3-venv): it makes the venv for adapters/python/requirements.txt"

printf '%s: installing the Python adapter clients (pip, PyPI) into %s\n' "$prog" "$venv" >&2
mkdir -p "$out" || fail "cannot create $out"
log=$out/.pip.log
# The venv is made where it lives (its scripts name their path); the stamp,
# copied last, says it is complete.
trap 'rm -f "$log"' EXIT
rm -rf "$venv"
if ! "$python" -m venv "$venv" >"$log" 2>&1; then
    cat "$log" >&2
    rm -rf "$venv"
    fail "$python -m venv failed (apt-get install python3-venv): it makes the venv for adapters/python/requirements.txt"
fi
if ! PIP_CACHE_DIR=$out/pip-cache PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 \
    "$venv/bin/python3" -m pip install --quiet --require-hashes --no-deps --only-binary=:all: \
    -r "$lock" </dev/null >"$log" 2>&1; then
    cat "$log" >&2
    why=$(grep -E '^ERROR:' "$log" | head -n 1 | sed 's/^ERROR: *//')
    fail "pip could not install adapters/python/requirements.txt from PyPI: ${why:-see the messages above}"
fi
cp "$lock" "$venv/.pgcb-lock" || fail "cannot write $venv/.pgcb-lock"
exit 0
