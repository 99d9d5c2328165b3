#!/usr/bin/env bash
# pgcb-test: plain build only: the adapters are the same in every build (no sanitizer reaches Python)
# The Python adapter's option mmap_threshold against the real server:
#           tests/server/python_malloc.sh BUILD_DIR
# runs tests/server/python_malloc.py (its header says what it checks) with the
# PG* variables of tests/run.sh's server. Needs /usr/bin/python3 with asyncpg
# and psycopg (scripts/install-deps.sh installs them): missing is a failure.
set -euo pipefail
(($# == 1)) || { printf 'usage: %s BUILD_DIR\n' "$0" >&2; exit 2; }
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
exec /usr/bin/python3 -B "$root/tests/server/python_malloc.py" "$1"
