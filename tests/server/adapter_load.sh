#!/usr/bin/env bash
# pgcb-test: plain build only: the adapters are the same in every build (no sanitizer reaches Python, Go, Rust, Ruby or Java)
# The Python, Go, Rust, Ruby and Java adapters' pools and loads against the real server, driven
# directly over the bridge protocol (no bridge driver):
#           tests/server/adapter_load.sh BUILD_DIR
# runs tests/server/adapter_load.py (its header says what it checks) for
# python asyncpg, psycopg, psycopg_python, psycopg2 and null, go pgx, pq and null, rust tokio-postgres
# and null, ruby pg and null, and java pgjdbc, vertx and null, with the PG*
# variables of tests/run.sh's server. Needs the Python adapter's venv
# (BUILD_DIR/adapters/python/venv: its python runs the script), and BUILD_DIR/adapters/go/pgcb-adapter-go and
# BUILD_DIR/adapters/rust/pgcb-adapter-rust (make), /usr/bin/ruby with the pg and
# connection_pool gems, and BUILD_DIR/adapters/java/ (make: the jar,
# jvm.options, the jdk link and lib/, Maven Central's jars of install.sh);
# any of them missing is a failure, not a skip: scripts/install-deps.sh
# installs them. Exit status 1 if any check failed.
set -euo pipefail
(($# == 1)) || { printf 'usage: %s BUILD_DIR\n' "$0" >&2; exit 2; }
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
# The Python adapter's venv (adapters/python/install.sh: psycopg, psycopg_pool,
# asyncpg from PyPI): BUILD_DIR's, else build's (another build directory
# runs the same adapters).
py=$1/adapters/python/venv/bin/python3
[[ -x $py ]] || py=$root/build/adapters/python/venv/bin/python3
[[ -x $py ]] || { printf '%s: no %s (scripts/install-deps.sh makes it)\n' "$0" "$py" >&2; exit 2; }
exec "$py" "$root/tests/server/adapter_load.py" "$1"
