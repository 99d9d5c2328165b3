#!/usr/bin/env bash
# A throw-away local PostgreSQL cluster for tests and benchmarks.
#
#   scripts/pgserver.sh start DIR [--cpus LIST]
#       initdb into DIR/data, listen on a unix socket in DIR/sock only (no TCP),
#       trust auth, fsync/synchronous_commit/full_page_writes off, log in
#       DIR/log; with --cpus the server runs under `taskset -c LIST`.
#       Creates the database pgcb. On success prints one line on stdout:
#         export PGHOST=DIR/sock PGPORT=N PGUSER=postgres PGDATABASE=pgcb [PGCB_SERVER_CPUS=LIST]
#       so that a caller can do: eval "$(scripts/pgserver.sh start "$dir" --cpus 1)"
#       Everything else goes to stderr or to DIR/log/.
#   scripts/pgserver.sh stop DIR
#       Stop the server (fast, then immediate) and remove DIR. Succeeds when DIR
#       does not exist or its server is not running.
#
# As root the cluster is owned by and run as the `postgres` user (DIR is
# chowned to it); otherwise as the current user. The superuser is always
# `postgres`. PG_BINDIR overrides the PostgreSQL bin directory (default: the
# newest /usr/lib/postgresql/*/bin).
set -euo pipefail

prog=pgserver.sh
port_first=5433
port_last=5632

die() { printf '%s: %s\n' "$prog" "$*" >&2; exit 1; }
note() { printf '%s: %s\n' "$prog" "$*" >&2; }

usage() {
    printf 'usage: %s start DIR [--cpus LIST] | stop DIR\n' "$0" >&2
    exit 2
}

find_bindir() {
    local d
    if [[ -n ${PG_BINDIR:-} ]]; then
        d=$PG_BINDIR
    else
        d=$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
        [[ -d $d ]] || die "no PostgreSQL server found in /usr/lib/postgresql/*/bin (install the postgresql package or set PG_BINDIR)"
    fi
    local tool
    for tool in initdb pg_ctl postgres psql; do
        [[ -x $d/$tool ]] || die "$d/$tool not found or not executable (set PG_BINDIR to a PostgreSQL bin directory)"
    done
    printf '%s\n' "$d"
}

# Run a command as USER: directly if that is who we are, via runuser if root.
run_as() {
    local user=$1; shift
    if [[ $user == "$(id -un)" ]]; then
        "$@"
    else
        runuser -u "$user" -- "$@"
    fi
}

# Absolute path of DIR (which need not exist).
abspath() { realpath -m -- "$1"; }

# Quote a value for postgresql.conf.
conf_quote() { printf "'%s'" "${1//\'/\'\'}"; }

# PID of the running postmaster of data dir $1, or nothing.
postmaster_pid() {
    local pidfile=$1/postmaster.pid pid
    [[ -r $pidfile ]] || return 0
    pid=$(head -n 1 -- "$pidfile" 2>/dev/null || true)
    [[ $pid =~ ^[0-9]+$ ]] || return 0
    [[ -d /proc/$pid ]] || return 0
    [[ $(cat "/proc/$pid/comm" 2>/dev/null || true) == postgres* ]] || return 0
    # A zombie (exited, not yet reaped) is not running.
    grep -q '^State:[[:space:]]*Z' "/proc/$pid/status" 2>/dev/null && return 0
    printf '%s\n' "$pid"
}

tail_log() {
    local f=$1
    if [[ -s $f ]]; then
        note "last lines of $f:"
        tail -n 20 -- "$f" | sed 's/^/    /' >&2
    fi
}

cmd_start() {
    local dir="" cpus="" have_cpus=0
    while (($#)); do
        case $1 in
            --cpus) (($# >= 2)) || die "--cpus needs a CPU list (e.g. --cpus 1 or --cpus 2-3)"
                    cpus=$2; have_cpus=1; shift 2 ;;
            --cpus=*) cpus=${1#--cpus=}; have_cpus=1; shift ;;
            -*) die "start: unknown option '$1'" ;;
            *) [[ -z $dir ]] || die "start: more than one DIR given ('$dir' and '$1')"
               dir=$1; shift ;;
        esac
    done
    [[ -n $dir ]] || usage
    if ((have_cpus)); then
        [[ -n $cpus ]] || die "--cpus needs a non-empty CPU list"
        taskset -c "$cpus" true 2>/dev/null \
            || die "invalid or unavailable --cpus list '$cpus' (online CPUs: $(cat /sys/devices/system/cpu/online 2>/dev/null || echo '?'))"
    fi

    local bindir
    bindir=$(find_bindir)
    dir=$(abspath "$dir")
    local data=$dir/data sock=$dir/sock logdir=$dir/log
    local log=$logdir/postgresql.log

    # A unix socket path is limited to 107 bytes.
    local sockpath=$sock/.s.PGSQL.$port_last
    ((${#sockpath} <= 107)) || die "DIR '$dir' is too long for a unix socket path (${#sockpath} > 107 bytes); use a shorter directory"

    if [[ -e $data ]]; then
        die "$data already exists (run '$0 stop $dir' first)"
    fi

    local user
    if ((EUID == 0)); then
        user=postgres
        id -u "$user" >/dev/null 2>&1 || die "running as root but there is no 'postgres' user to run the server as"
    else
        user=$(id -un)
    fi

    mkdir -p -- "$dir" "$sock" "$logdir" || die "cannot create $dir"
    if ((EUID == 0)); then
        chown "$user": -- "$dir" "$sock" "$logdir" || die "cannot chown $dir to $user"
        chmod 0700 -- "$dir" || die "cannot chmod $dir"
        run_as "$user" test -w "$dir" -a -x "$dir" \
            || die "user $user cannot write to $dir (is a parent directory not traversable by $user?)"
    fi
    # Run from a directory the server user can enter (initdb complains otherwise).
    cd -- "$dir"

    # Pick a port: no socket for it in our dir nor in the usual shared dirs.
    local port="" p d used
    for ((p = port_first; p <= port_last; p++)); do
        used=0
        for d in "$sock" /run/postgresql /var/run/postgresql /tmp; do
            if [[ -e $d/.s.PGSQL.$p || -e $d/.s.PGSQL.$p.lock ]]; then used=1; break; fi
        done
        if ((!used)); then port=$p; break; fi
    done
    [[ -n $port ]] || die "no free port in $port_first-$port_last"

    note "initdb into $data (as $user, $bindir)"
    if ! run_as "$user" "$bindir/initdb" -D "$data" -U postgres --auth-local=trust --auth-host=reject \
            -E UTF8 --locale=C --no-sync >"$logdir/initdb.log" 2>&1; then
        tail_log "$logdir/initdb.log"
        die "initdb failed (log: $logdir/initdb.log)"
    fi

    {
        printf '\n# --- added by scripts/pgserver.sh: throw-away benchmark cluster ---\n'
        printf "listen_addresses = ''\n"
        printf 'port = %s\n' "$port"
        printf 'unix_socket_directories = %s\n' "$(conf_quote "$sock")"
        printf 'fsync = off\n'
        printf 'synchronous_commit = off\n'
        printf 'full_page_writes = off\n'
        printf 'shared_buffers = 128MB\n'
        printf 'logging_collector = off\n'
    } >>"$data/postgresql.conf"

    local -a pin=()
    if ((have_cpus)); then pin=(taskset -c "$cpus"); fi
    note "starting PostgreSQL on $sock port $port${cpus:+ (CPUs $cpus)}"
    if ! run_as "$user" "${pin[@]}" "$bindir/pg_ctl" -D "$data" -l "$log" -w -t 60 -s start >&2; then
        # Do not leave a half-started server behind.
        if [[ -n $(postmaster_pid "$data") ]]; then
            run_as "$user" "$bindir/pg_ctl" -D "$data" -m immediate -w -t 30 -s stop >&2 || true
        fi
        tail_log "$log"
        die "server failed to start (log: $log)"
    fi

    if ! "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h "$sock" -p "$port" -U postgres -d postgres \
            -c 'CREATE DATABASE pgcb' >&2; then
        run_as "$user" "$bindir/pg_ctl" -D "$data" -m immediate -w -t 30 -s stop >&2 || true
        tail_log "$log"
        die "could not create database pgcb"
    fi

    local pid
    pid=$(postmaster_pid "$data")
    note "PostgreSQL running: pid ${pid:-?}, socket $sock, port $port, CPUs ${cpus:-any}, log $log"

    local out
    out=$(printf 'export PGHOST=%q PGPORT=%q PGUSER=postgres PGDATABASE=pgcb' "$sock" "$port")
    if ((have_cpus)); then
        out+=$(printf ' PGCB_SERVER_CPUS=%q' "$cpus")
    fi
    printf '%s\n' "$out"
}

cmd_stop() {
    (($# == 1)) || usage
    local dir
    dir=$(abspath "$1")
    [[ $dir != / ]] || die "refusing to remove /"
    if [[ ! -e $dir ]]; then
        return 0
    fi
    [[ -d $dir ]] || die "$dir is not a directory"

    local data=$dir/data pid
    pid=$(postmaster_pid "$data")
    if [[ -n $pid ]]; then
        local bindir user
        bindir=$(find_bindir)
        user=$(stat -c %U -- "$data")
        cd -- "$dir"
        if ! run_as "$user" "$bindir/pg_ctl" -D "$data" -m fast -w -t 30 -s stop >&2; then
            note "fast shutdown failed; trying immediate"
            run_as "$user" "$bindir/pg_ctl" -D "$data" -m immediate -w -t 30 -s stop >&2 || true
        fi
        if [[ -n $(postmaster_pid "$data") ]]; then
            note "server (pid $pid) still running; killing it"
            kill -KILL "$pid" 2>/dev/null || true
            local i
            for ((i = 0; i < 50; i++)); do
                [[ -d /proc/$pid ]] || break
                sleep 0.1
            done
            [[ ! -d /proc/$pid ]] || die "could not stop the server (pid $pid) of $data"
        fi
        cd /
    fi

    # Only remove what start created: data/, sock/, log/.
    local entry extra=()
    shopt -s nullglob dotglob
    for entry in "$dir"/*; do
        case ${entry##*/} in
            data|sock|log) ;;
            *) extra+=("${entry##*/}") ;;
        esac
    done
    shopt -u nullglob dotglob
    if ((${#extra[@]})); then
        die "refusing to remove $dir: it holds files pgserver.sh did not create (${extra[*]})"
    fi
    rm -rf -- "$dir" || die "could not remove $dir"
    note "stopped and removed $dir"
}

(($# >= 1)) || usage
cmd=$1; shift
case $cmd in
    start) cmd_start "$@" ;;
    stop) cmd_stop "$@" ;;
    -h|--help|help) printf 'usage: %s start DIR [--cpus LIST] | stop DIR\n' "$0"; exit 0 ;;
    *) die "unknown command '$cmd' (expected start or stop)" ;;
esac
