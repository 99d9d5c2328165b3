#!/usr/bin/env bash
# pgcb-test: plain build only: the adapters are the same in every build (no sanitizer reaches Python)
# The Python adapter's option mmap_threshold against the real server:
#           tests/server/python_malloc.sh BUILD_DIR
# runs tests/server/python_malloc.py (its header says what it checks) with the
# PG* variables of tests/run.sh's server, under the Python adapter's venv
# (asyncpg and psycopg: scripts/install-deps.sh makes it): missing is a failure.
set -euo pipefail
(($# == 1)) || { printf 'usage: %s BUILD_DIR\n' "$0" >&2; exit 2; }
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
# The Python adapter's venv (adapters/python/install.sh: psycopg, psycopg_pool,
# asyncpg from PyPI): BUILD_DIR's, else build's (another build directory
# runs the same adapters).
py=$1/adapters/python/venv/bin/python3
[[ -x $py ]] || py=$root/build/adapters/python/venv/bin/python3
[[ -x $py ]] || { printf '%s: no %s (scripts/install-deps.sh makes it)\n' "$0" "$py" >&2; exit 2; }
exec "$py" -B "$root/tests/server/python_malloc.py" "$1"
