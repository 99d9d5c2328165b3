#!/usr/bin/env bash
# pgcb-test: plain build only: the adapters are the same in every build (no sanitizer reaches Python, Go, Rust, Ruby or Java)
# Streaming suites end to end (issue 42) against the real server:
#           tests/server/stream_e2e.sh BUILD_DIR
# runs tests/server/stream_e2e.py (its header says what it checks: a run of buffered and
# streamed suites over the C drivers and a client of every adapter, the result file's
# figures and verdicts, and a backend terminated mid-result) with the PG* variables of
# tests/run.sh's server, under the Python adapter's venv.
set -euo pipefail
(($# == 1)) || { printf 'usage: %s BUILD_DIR\n' "$0" >&2; exit 2; }
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
py=$1/adapters/python/venv/bin/python3
[[ -x $py ]] || py=$root/build/adapters/python/venv/bin/python3
[[ -x $py ]] || { printf '%s: no %s (scripts/install-deps.sh makes it)\n' "$0" "$py" >&2; exit 2; }
exec "$py" -B "$root/tests/server/stream_e2e.py" "$1"
