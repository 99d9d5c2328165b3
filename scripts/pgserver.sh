#!/usr/bin/env bash
# A throw-away local PostgreSQL cluster for tests and benchmarks.
#
#   scripts/pgserver.sh start DIR [--cpus LIST] [--tcp] [--ssl]
#       initdb into DIR/data, listen on a unix socket in DIR/sock (by default
#       only there: no TCP), trust auth, fsync/synchronous_commit/
#       full_page_writes off, max_connections 300, log in DIR/log; with --cpus the server runs under
#       `taskset -c LIST`. Creates the database pgcb and three login roles
#       besides the superuser postgres, for connection suites that measure
#       authentication (docs/tests.md):
#         pgcb_md5    password stored as MD5, pg_hba method md5
#         pgcb_scram  password stored as SCRAM-SHA-256, method scram-sha-256
#         pgcb_cert   (--ssl only) no password, method cert: TLS over TCP with
#                     the client certificate (CN=pgcb_cert), refused otherwise
#       (their pg_hba lines, on the socket and on 127.0.0.1, come before the
#       trust lines, so postgres keeps trust). Their passwords are random,
#       made at each start, and written to DIR/pgpass (a libpq password
#       file, mode 0600, removed by stop), which the export line names as
#       PGPASSFILE. In database pgcb they may SELECT every table postgres
#       creates in schema public (ALTER DEFAULT PRIVILEGES): the benchmark
#       tables that [server] setup makes as postgres (sql/benchmark_rows.sql).
#       --tcp: also listen on 127.0.0.1, on the same port number, chosen free
#       on both (trust for 127.0.0.1/32 in pg_hba.conf).
#       --ssl (implies --tcp): ssl = on, with a CA, a server certificate for
#       localhost and 127.0.0.1 and a client certificate for the user
#       pgcb_cert (CN=pgcb_cert) made at start with openssl in DIR/tls
#       (removed by stop). TCP connections may use TLS or not (hostssl and
#       hostnossl both trust, except for the roles above); a client
#       certificate is asked for but not required (ssl_ca_file), except by
#       pgcb_cert.
#       On success prints one line on stdout:
#         export PGHOST=DIR/sock PGPORT=N PGUSER=postgres PGDATABASE=pgcb
#                PGPASSFILE=DIR/pgpass [PGCB_SERVER_CPUS=LIST]
#                [PGCB_TCP_HOST=127.0.0.1 PGCB_TCP_PORT=N]
#                [PGCB_SSL_ROOTCERT=DIR/tls/ca.crt PGSSLROOTCERT=DIR/tls/ca.crt
#                 PGCB_SSL_CERT=DIR/tls/client.crt PGCB_SSL_KEY=DIR/tls/client.key]
#       so that a caller can do: eval "$(scripts/pgserver.sh start "$dir" --cpus 1)"
#       (PGHOST stays the socket: TCP and TLS are what a caller asks for by
#       name, e.g. host=$PGCB_TCP_HOST port=$PGCB_TCP_PORT sslmode=verify-full
#       sslrootcert=$PGCB_SSL_ROOTCERT). Everything else goes to stderr or to
#       DIR/log/.
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
    printf 'usage: %s start DIR [--cpus LIST] [--tcp] [--ssl] | stop DIR\n' "$0" >&2
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

# 0 if something listens on TCP port $1 of any local address.
tcp_port_used() { [[ -n $(ss -Htln "sport = :$1" 2>/dev/null) ]]; }

# free_port FROM SOCKDIR: print the first port from FROM up to port_last with
# no socket for it in SOCKDIR nor in the usual shared dirs and nothing
# listening on it over TCP (needed with --tcp; without it, so that a port
# number still names one server on this machine); 1 if there is none.
free_port() {
    local p d used
    for ((p = $1; p <= port_last; p++)); do
        used=0
        for d in "$2" /run/postgresql /var/run/postgresql /tmp; do
            if [[ -e $d/.s.PGSQL.$p || -e $d/.s.PGSQL.$p.lock ]]; then used=1; break; fi
        done
        if ((!used)) && tcp_port_used "$p"; then used=1; fi
        if ((!used)); then printf '%s\n' "$p"; return 0; fi
    done
    return 1
}

# make_tls DIR USER: a CA, a server certificate (localhost, 127.0.0.1) and a
# client certificate (CN=pgcb_cert: the role whose pg_hba method is cert)
# signed by it, in DIR; keys 0600, owned by USER (the server's) except the
# client's, which stays the caller's.
make_tls() {
    local t=$1 user=$2 log=$1/openssl.log
    mkdir -p -- "$t" || die "cannot create $t"
    {
        openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=pgclientbench throw-away CA" \
            -keyout "$t/ca.key" -out "$t/ca.crt" &&
        openssl req -new -newkey rsa:2048 -nodes -subj "/CN=localhost" \
            -keyout "$t/server.key" -out "$t/server.csr" &&
        printf 'subjectAltName = DNS:localhost, IP:127.0.0.1\nextendedKeyUsage = serverAuth\n' >"$t/server.ext" &&
        openssl x509 -req -in "$t/server.csr" -CA "$t/ca.crt" -CAkey "$t/ca.key" -CAcreateserial \
            -days 2 -extfile "$t/server.ext" -out "$t/server.crt" &&
        openssl req -new -newkey rsa:2048 -nodes -subj "/CN=pgcb_cert" \
            -keyout "$t/client.key" -out "$t/client.csr" &&
        printf 'extendedKeyUsage = clientAuth\n' >"$t/client.ext" &&
        openssl x509 -req -in "$t/client.csr" -CA "$t/ca.crt" -CAkey "$t/ca.key" -CAcreateserial \
            -days 2 -extfile "$t/client.ext" -out "$t/client.crt"
    } >"$log" 2>&1 || { tail_log "$log"; die "openssl could not make the certificates (log: $log)"; }
    rm -f -- "$t"/*.csr "$t"/*.ext "$t/ca.srl" "$t/ca.key"
    chmod 0600 -- "$t/server.key" "$t/client.key"
    chmod 0644 -- "$t/ca.crt" "$t/server.crt" "$t/client.crt"
    chmod 0755 -- "$t"
    if ((EUID == 0)); then chown "$user": -- "$t/server.key" "$t/server.crt"; fi
}

# A random password: 24 hex digits (no character a passfile would escape).
random_password() { od -An -N12 -tx1 /dev/urandom | tr -d ' \n'; }

# make_roles BINDIR SOCK PORT PASSFILE SSL: create the login roles (the
# header says which), write their passwords to PASSFILE (mode 0600, the
# caller's: libpq refuses a password file others can read) and let them
# read the tables postgres makes in database pgcb.
make_roles() {
    local bindir=$1 sock=$2 port=$3 passfile=$4 ssl=$5 md5pw scrampw
    md5pw=$(random_password)
    scrampw=$(random_password)
    [[ ${#md5pw} == 24 && ${#scrampw} == 24 ]] || { note "cannot read /dev/urandom"; return 1; }
    local readers="pgcb_md5, pgcb_scram" cert=""
    if ((ssl)); then
        readers+=", pgcb_cert"
        cert="CREATE ROLE pgcb_cert LOGIN;"
    fi
    # The passwords go in on psql's standard input, never on a command line.
    "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h "$sock" -p "$port" -U postgres -d pgcb >&2 <<SQL || return 1
SET password_encryption = 'md5';
CREATE ROLE pgcb_md5 LOGIN PASSWORD '$md5pw';
SET password_encryption = 'scram-sha-256';
CREATE ROLE pgcb_scram LOGIN PASSWORD '$scrampw';
$cert
ALTER DEFAULT PRIVILEGES FOR ROLE postgres IN SCHEMA public GRANT SELECT ON TABLES TO $readers;
SQL
    (
        umask 077
        printf '# written by scripts/pgserver.sh start; removed by stop\n'
        printf '*:%s:*:pgcb_md5:%s\n' "$port" "$md5pw"
        printf '*:%s:*:pgcb_scram:%s\n' "$port" "$scrampw"
    ) >"$passfile" || return 1
    chmod 0600 -- "$passfile"
}

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
    local dir="" cpus="" have_cpus=0 tcp=0 ssl=0
    while (($#)); do
        case $1 in
            --tcp) tcp=1; shift ;;
            --ssl) ssl=1; tcp=1; shift ;;
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
    local data=$dir/data sock=$dir/sock logdir=$dir/log tls=$dir/tls
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

    # Pick a port (free_port).
    local port
    port=$(free_port "$port_first" "$sock") || die "no free port in $port_first-$port_last"

    note "initdb into $data (as $user, $bindir)"
    if ! run_as "$user" "$bindir/initdb" -D "$data" -U postgres --auth-local=trust --auth-host=reject \
            -E UTF8 --locale=C --no-sync >"$logdir/initdb.log" 2>&1; then
        tail_log "$logdir/initdb.log"
        die "initdb failed (log: $logdir/initdb.log)"
    fi

    if ((ssl)); then
        note "making a CA, a server and a client certificate in $tls"
        make_tls "$tls" "$user"
    fi
    # pg_hba.conf: the login roles' lines first (the first matching line
    # decides), then TCP's trust lines, then initdb's (local trust, host
    # reject: --auth-host=reject).
    {
        printf '# --- added by scripts/pgserver.sh: the login roles, by method ---\n'
        printf 'local     all pgcb_md5   md5\n'
        printf 'host      all pgcb_md5   127.0.0.1/32 md5\n'
        printf 'local     all pgcb_scram scram-sha-256\n'
        printf 'host      all pgcb_scram 127.0.0.1/32 scram-sha-256\n'
        if ((ssl)); then
            printf 'hostssl   all pgcb_cert  127.0.0.1/32 cert\n'
        fi
        printf 'local     all pgcb_cert  reject\n'
        printf 'host      all pgcb_cert  127.0.0.1/32 reject\n'
        if ((tcp)); then
            printf '# --- added by scripts/pgserver.sh: TCP on loopback, trust ---\n'
            if ((ssl)); then
                printf 'hostssl   all all 127.0.0.1/32 trust\n'
                printf 'hostnossl all all 127.0.0.1/32 trust\n'
            else
                printf 'host      all all 127.0.0.1/32 trust\n'
            fi
        fi
        printf '\n'
    } >"$data/pg_hba.conf.add"
    cat -- "$data/pg_hba.conf.add" "$data/pg_hba.conf" >"$data/pg_hba.conf.new"
    mv -- "$data/pg_hba.conf.new" "$data/pg_hba.conf"
    rm -f -- "$data/pg_hba.conf.add"
    if ((EUID == 0)); then chown "$user": -- "$data/pg_hba.conf"; fi

    {
        printf '\n# --- added by scripts/pgserver.sh: throw-away benchmark cluster ---\n'
        if ((tcp)); then
            printf "listen_addresses = '127.0.0.1'\n"
        else
            printf "listen_addresses = ''\n"
        fi
        if ((ssl)); then
            printf 'ssl = on\n'
            printf 'ssl_cert_file = %s\n' "$(conf_quote "$tls/server.crt")"
            printf 'ssl_key_file = %s\n' "$(conf_quote "$tls/server.key")"
            printf 'ssl_ca_file = %s\n' "$(conf_quote "$tls/ca.crt")"
        fi
        printf 'port = %s\n' "$port"
        printf 'unix_socket_directories = %s\n' "$(conf_quote "$sock")"
        printf 'fsync = off\n'
        printf 'synchronous_commit = off\n'
        printf 'full_page_writes = off\n'
        printf 'shared_buffers = 128MB\n'
        # every client's pool at once: conf/network.ini's c10 suite holds 15
        # pools of 10 (each driver's host keeps its connections between turns)
        printf 'max_connections = 300\n'
        printf 'logging_collector = off\n'
    } >>"$data/postgresql.conf"

    local -a pin=()
    if ((have_cpus)); then pin=(taskset -c "$cpus"); fi
    note "starting PostgreSQL on $sock port $port${cpus:+ (CPUs $cpus)}"
    # A TCP port found free can be taken before the server binds it (another
    # pgserver.sh starting at the same time: make test's two passes do): then
    # the next free one, a few times.
    local tries=0 started=0
    while ((tries < 5)); do
        if run_as "$user" "${pin[@]}" "$bindir/pg_ctl" -D "$data" -l "$log" -w -t 60 -s start >&2; then
            started=1
            break
        fi
        tries=$((tries + 1))
        if ((!tcp)) || ! grep -q 'could not bind .*Address already in use' "$log" \
                || [[ -n $(postmaster_pid "$data") ]]; then
            break
        fi
        port=$(free_port $((port + 1)) "$sock") || break
        note "TCP port taken meanwhile: starting PostgreSQL on port $port"
        printf 'port = %s\n' "$port" >>"$data/postgresql.conf"
        : >"$log"
    done
    if ((!started)); then
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

    local roles="pgcb_md5, pgcb_scram"
    if ((ssl)); then roles+=", pgcb_cert"; fi
    note "creating the login roles $roles (passwords in $dir/pgpass)"
    if ! make_roles "$bindir" "$sock" "$port" "$dir/pgpass" "$ssl"; then
        run_as "$user" "$bindir/pg_ctl" -D "$data" -m immediate -w -t 30 -s stop >&2 || true
        tail_log "$log"
        die "could not create the login roles"
    fi

    local pid
    pid=$(postmaster_pid "$data")
    local where="socket $sock, port $port"
    if ((tcp)); then where+=", TCP 127.0.0.1:$port"; fi
    if ((ssl)); then where+=" with TLS (certificates in $tls)"; fi
    note "PostgreSQL running: pid ${pid:-?}, $where, CPUs ${cpus:-any}, log $log"

    local out
    out=$(printf 'export PGHOST=%q PGPORT=%q PGUSER=postgres PGDATABASE=pgcb PGPASSFILE=%q' \
        "$sock" "$port" "$dir/pgpass")
    if ((have_cpus)); then
        out+=$(printf ' PGCB_SERVER_CPUS=%q' "$cpus")
    fi
    if ((tcp)); then
        out+=$(printf ' PGCB_TCP_HOST=127.0.0.1 PGCB_TCP_PORT=%q' "$port")
    fi
    if ((ssl)); then
        out+=$(printf ' PGCB_SSL_ROOTCERT=%q PGSSLROOTCERT=%q PGCB_SSL_CERT=%q PGCB_SSL_KEY=%q' \
            "$tls/ca.crt" "$tls/ca.crt" "$tls/client.crt" "$tls/client.key")
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

    # Only remove what start created: data/, sock/, log/, tls/, pgpass.
    local entry extra=()
    shopt -s nullglob dotglob
    for entry in "$dir"/*; do
        case ${entry##*/} in
            data|sock|log|tls|pgpass) ;;
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
    -h|--help|help) printf 'usage: %s start DIR [--cpus LIST] [--tcp] [--ssl] | stop DIR\n' "$0"; exit 0 ;;
    *) die "unknown command '$cmd' (expected start or stop)" ;;
esac
