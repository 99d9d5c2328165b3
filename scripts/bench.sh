#!/usr/bin/env bash
# Run the benchmark runner on CONFIG:  scripts/bench.sh CONFIG [runner args...]
#
# Server: when PGCB_CONNINFO, PGHOST, PGHOSTADDR, PGPORT, PGDATABASE or
# PGSERVICE is set, the runner uses that server. Otherwise a throw-away local
# PostgreSQL (scripts/pgserver.sh) is started in a temporary directory, pinned
# to the CPUs the runner does not use (the runner uses CPU 0, or
# $PGCB_CLIENT_CPUS), and stopped and removed on exit, failure, Ctrl-C or TERM;
# with TCP and TLS (pgserver.sh --ssl) when a suite of CONFIG has a
# `transport` list naming tls, with TCP (--tcp) when it names tcp or has
# `rtt_ms` (the wire proxy reaches the server over TCP).
# The runner (build/runner, or $PGCB_RUNNER) is run as `runner -c CONFIG
# --html auto "$@"` (the HTML report beside the JSON result; --html FILE among
# the arguments names another, --list-drivers and --check-driver write none);
# this script exits with its exit status. The runner loads the schema itself.
set -euo pipefail

prog=bench.sh
here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
pgserver=$here/pgserver.sh

die() { printf '%s: %s\n' "$prog" "$*" >&2; exit 1; }
note() { printf '%s: %s\n' "$prog" "$*" >&2; }

# "0-2,5" -> "0 1 2 5" (one per line); fails on a malformed list.
expand_cpus() {
    local list=$1 part lo hi i
    local -a parts
    [[ $list =~ ^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$ ]] || return 1
    IFS=, read -ra parts <<<"$list"
    for part in "${parts[@]}"; do
        lo=${part%-*} hi=${part#*-}
        ((10#$lo <= 10#$hi)) || return 1
        for ((i = 10#$lo; i <= 10#$hi; i++)); do printf '%d\n' "$i"; done
    done
}

# CPUs this process may run on: online CPUs within our affinity mask.
usable_cpus() {
    local online allowed
    online=$(cat /sys/devices/system/cpu/online 2>/dev/null || true)
    [[ -n $online ]] || online="0-$(($(nproc --all) - 1))"
    allowed=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status 2>/dev/null || true)
    if [[ -n $allowed ]]; then
        comm -12 <(expand_cpus "$online" | sort) <(expand_cpus "$allowed" | sort) | sort -n
    else
        expand_cpus "$online"
    fi
}

redact() {
    # Hide passwords in a conninfo string or URI.
    sed -E 's/(password[[:space:]]*=[[:space:]]*)[^[:space:]&]*/\1***/g; s#(://[^:/@]*:)[^@]*@#\1***@#'
}

(($# >= 1)) || { printf 'usage: %s CONFIG [runner args...]\n' "$0" >&2; exit 2; }
config=$1; shift
[[ -f $config && -r $config ]] || die "config file '$config' not found or not readable"
runner=${PGCB_RUNNER:-$here/../build/runner}
[[ -x $runner && ! -d $runner ]] || die "runner '$runner' not found or not executable (run make first, or set PGCB_RUNNER)"

srvdir=""
runner_pid=""
# shellcheck disable=SC2317  # invoked by the traps below
cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    if [[ -n $runner_pid ]] && kill -0 "$runner_pid" 2>/dev/null; then
        kill -TERM "$runner_pid" 2>/dev/null || true
        wait "$runner_pid" 2>/dev/null || true
    fi
    if [[ -n $srvdir ]]; then
        "$pgserver" stop "$srvdir" || note "could not stop the server in $srvdir"
        srvdir=""
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [[ -n ${PGCB_CONNINFO:-} ]]; then
    export PGCB_CONNINFO
    note "server: the one PGCB_CONNINFO names ($(printf '%s' "$PGCB_CONNINFO" | redact))"
elif [[ -n ${PGHOST:-}${PGHOSTADDR:-}${PGPORT:-}${PGDATABASE:-}${PGSERVICE:-} ]]; then
    desc=""
    for v in PGSERVICE PGHOST PGHOSTADDR PGPORT PGDATABASE PGUSER; do
        if [[ -n ${!v:-} ]]; then desc+="${desc:+ }$v=${!v}"; fi
    done
    note "server: the one the environment names ($desc)"
else
    client=${PGCB_CLIENT_CPUS:-0}
    client_list=$(expand_cpus "$client") || die "PGCB_CLIENT_CPUS='$client' is not a CPU list (e.g. 0 or 0-1,4)"
    mapfile -t usable < <(usable_cpus)
    server_cpus=()
    for c in "${usable[@]}"; do
        grep -qx -- "$c" <<<"$client_list" || server_cpus+=("$c")
    done
    cpus_arg=()
    if ((${#usable[@]} < 2)); then
        note "note: only ${#usable[@]} CPU: client and server share CPU ${usable[0]:-0}"
    elif ((${#server_cpus[@]} == 0)); then
        note "note: PGCB_CLIENT_CPUS=$client covers every CPU: the server is not pinned"
    else
        server_list=$(IFS=,; printf '%s' "${server_cpus[*]}")
        cpus_arg=(--cpus "$server_list")
    fi

    # A config whose suites ask for TCP or TLS (`transport = ... tls`) gets a
    # server that offers them (pgserver.sh --tcp / --ssl).
    net_arg=()
    if grep -Eq '^[[:space:]]*transport[[:space:]]*=.*\btls\b' -- "$config"; then
        net_arg=(--ssl)
    elif grep -Eq '^[[:space:]]*(transport[[:space:]]*=.*\btcp\b|rtt_ms[[:space:]]*=)' -- "$config"; then
        net_arg=(--tcp) # rtt_ms: the wire proxy reaches the server over TCP
    fi
    srvdir=$(mktemp -d "${TMPDIR:-/tmp}/pgcb-bench.XXXXXX") || die "mktemp -d failed"
    env_line=$("$pgserver" start "$srvdir" "${cpus_arg[@]}" "${net_arg[@]}") || die "could not start a local PostgreSQL (see above)"
    eval "$env_line"
    unset PGCB_CONNINFO PGHOSTADDR PGSERVICE
    note "server: throw-away PostgreSQL, socket $PGHOST port $PGPORT, server CPUs ${PGCB_SERVER_CPUS:-not pinned}, runner CPUs $client"
fi

# The report beside the result, unless the arguments say otherwise.
html=(--html auto)
for a in "$@"; do
    case $a in --html|--html=*|-H|--list-drivers|--check-driver|--check-driver=*|-h|--help) html=() ;; esac
done
rc=0
"$runner" -c "$config" "${html[@]}" "$@" &
runner_pid=$!
wait "$runner_pid" || rc=$?
runner_pid=""
exit "$rc"
