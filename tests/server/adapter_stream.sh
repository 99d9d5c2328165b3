#!/usr/bin/env bash
# pgcb-test: plain build only: the adapters are the same in every build (no sanitizer reaches Python, Go, Rust, Ruby or Java)
# Every adapter's stream request (docs/bridge-protocol.md, "stream") against the real server,
# driven directly over the bridge protocol (no bridge driver):
#           tests/server/adapter_stream.sh BUILD_DIR
# runs tests/server/adapter_stream.py (its header says what it checks) for every client of
# the node, python, go, rust, ruby and java adapters, with the PG* variables of
# tests/run.sh's server, under the Python adapter's venv (its psycopg reads the reference).
# A missing adapter is a failure, not a skip: scripts/install-deps.sh installs them.
set -euo pipefail
(($# == 1)) || { printf 'usage: %s BUILD_DIR\n' "$0" >&2; exit 2; }
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
py=$1/adapters/python/venv/bin/python3
[[ -x $py ]] || py=$root/build/adapters/python/venv/bin/python3
[[ -x $py ]] || { printf '%s: no %s (scripts/install-deps.sh makes it)\n' "$0" "$py" >&2; exit 2; }
exec "$py" -B "$root/tests/server/adapter_stream.py" "$1"
