#!/usr/bin/env bash
# pgcb-test: plain build only: the profile scripts are the same in every build
# The flame graph pages (build/profile/flame, flame-dir): tests/profile/flame_page.js
# (its header says what it checks). Needs node and the renderer's npm packages
# (make): missing is a failure.
#           tests/server/profile_flame.sh BUILD_DIR
set -euo pipefail
(($# == 1)) || { printf 'usage: %s BUILD_DIR\n' "$0" >&2; exit 2; }
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
command -v node >/dev/null 2>&1 || { printf 'profile_flame: FAIL: node not found (scripts/install-deps.sh installs it)\n' >&2; exit 1; }
exec node "$root/tests/profile/flame_page.js" "$1"
