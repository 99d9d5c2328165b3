#!/usr/bin/env bash
# pgcb-test: plain build only: the profile scripts are the same in every build
# fold.py's logic without perf: tests/profile/test_foldlib.py (its header says
# what it checks) under Debian's /usr/bin/python3 (3.11, perf's embedded Python;
# -B: no __pycache__ in the source tree).
#           tests/server/profile_foldlib.sh BUILD_DIR
set -euo pipefail
(($# == 1)) || { printf 'usage: %s BUILD_DIR\n' "$0" >&2; exit 2; }
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
exec /usr/bin/python3 -B "$root/tests/profile/test_foldlib.py"
