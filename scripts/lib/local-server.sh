# shellcheck shell=bash
# scripts/lib/local-server.sh -- sourced by the comparison scripts: a
# throw-away local PostgreSQL unless the environment names a server.
#
#   local_server_start PROG CLIENT_CPUS
#       When none of PGCB_CONNINFO, PGHOST, PGPORT, PGDATABASE, PGSERVICE is
#       set, start scripts/pgserver.sh in a new temporary directory, pinned to
#       every CPU but CLIENT_CPUS (sharing them on a 1-CPU machine, said on
#       stderr), and export its PG* variables; local_server_dir is then its
#       directory. Exits with a message on failure.
#   local_server_stop
#       Stop and remove it (a no-op when none was started).
#   load_benchmark_rows PROG
#       Load sql/benchmark_rows.sql into the server (psql), or exit.
#   comparison_start PROG CLIENT_CPUS NAME
#       All of a comparison script's set-up: a temporary directory
#       (comparison_tmp, /tmp/NAME.XXXXXX), the EXIT/INT/TERM traps that stop
#       the server and remove the directory, local_server_start and
#       load_benchmark_rows.
local_server_dir=""
comparison_tmp=""
local_server_root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)

local_server_start() {
    local prog=$1 client=$2 ncpu env_lines
    local -a pin=()
    [[ -z ${PGCB_CONNINFO:-}${PGHOST:-}${PGPORT:-}${PGDATABASE:-}${PGSERVICE:-} ]] || return 0
    local_server_dir=$(mktemp -d "/tmp/pgcb-$prog-server.XXXXXX") # pgserver.sh lets postgres in
    ncpu=$(nproc)
    if ((ncpu >= 2)); then
        pin=(--cpus "$(seq 0 $((ncpu - 1)) | grep -vx "$client" | paste -sd, -)")
    else
        printf '%s: note: only 1 CPU: client and server share it\n' "$prog" >&2
    fi
    env_lines=$("$local_server_root/scripts/pgserver.sh" start "$local_server_dir" "${pin[@]}") \
        || { printf '%s: cannot start a local server\n' "$prog" >&2; exit 1; }
    eval "$env_lines"
}

local_server_stop() {
    if [[ -n $local_server_dir ]]; then
        "$local_server_root/scripts/pgserver.sh" stop "$local_server_dir" >/dev/null 2>&1 || true
        local_server_dir=""
    fi
}

load_benchmark_rows() {
    psql -q -v ON_ERROR_STOP=1 -f "$local_server_root/sql/benchmark_rows.sql" >/dev/null 2>&1 \
        || { printf '%s: cannot load sql/benchmark_rows.sql into the server\n' "$1" >&2; exit 1; }
}

comparison_start() {
    comparison_tmp=$(mktemp -d "/tmp/$3.XXXXXX")
    trap comparison_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    local_server_start "$1" "$2"
    load_benchmark_rows "$1"
}

# shellcheck disable=SC2317  # invoked by the EXIT trap
comparison_cleanup() {
    local_server_stop
    if [[ -n $comparison_tmp ]]; then rm -rf -- "$comparison_tmp"; fi
}
