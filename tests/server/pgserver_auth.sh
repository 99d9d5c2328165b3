#!/usr/bin/env bash
# The throw-away server's login roles (scripts/pgserver.sh start), checked
# with libpq's psql against servers of its own, in a temporary directory,
# with log_connections on (in these servers only) so that the server's log
# says which method authenticated each connection:
#   - --ssl: the export line names PGPASSFILE (DIR/pgpass, mode 0600) and
#     PGSSLROOTCERT (= PGCB_SSL_ROOTCERT); pgcb_md5's password is stored as
#     MD5 and pgcb_scram's as SCRAM-SHA-256; each logs in with its method
#     (the log's "method=md5" / "method=scram-sha-256") on the socket and
#     over TCP with TLS, and fails without the passfile (no password
#     supplied) and with a wrong password in it; pgcb_cert logs in with the
#     client certificate over TLS (method=cert), and is refused without it
#     and on the socket; postgres still logs in without a password (trust);
#     the roles may SELECT a table postgres makes after the start (as
#     [server] setup does with sql/benchmark_rows.sql), not write it; stop
#     removes the passfile with the rest;
#   - no --ssl: no pgcb_cert role, pgcb_md5 and pgcb_scram as above.
#           tests/server/pgserver_auth.sh BUILD_DIR   (BUILD_DIR unused)
# pgcb-test: plain build only: it tests scripts/pgserver.sh, the same in every build
set -euo pipefail

root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
prog=pgserver_auth.sh
pgserver=$root/scripts/pgserver.sh
. "$root/tests/lib/own_servers.sh"
own_servers pgcb-auth

fail() { printf '%s: FAILED: %s\n' "$prog" "$*" >&2; exit 1; }
ok() { printf '%s: ok: %s\n' "$prog" "$*" | tee -a "$tmp/passed"; }

start() {
    local name=$1; shift
    line=$("$pgserver" start "$tmp/$name" "$@" 2>"$tmp/$name.log") \
        || { cat "$tmp/$name.log" >&2; fail "pgserver.sh start $* did not start"; }
}

# q CONNINFO SQL: one value (psql never prompts: -w), or fail with its message.
q() { psql -X -w -At -d "$1 dbname=pgcb connect_timeout=10" -c "$2" 2>"$tmp/psql.err" \
        || fail "psql '$1' failed: $(cat "$tmp/psql.err")"; }
# refused CONNINFO WANT: psql must fail, and its message must contain WANT.
refused() {
    if psql -X -w -At -d "$1 dbname=pgcb connect_timeout=10" -c 'SELECT 1' \
            >/dev/null 2>"$tmp/psql.err"; then
        fail "psql '$1' connected; it must fail with '$2'"
    fi
    grep -qF -- "$2" "$tmp/psql.err" || fail "psql '$1' failed, but not with '$2': $(cat "$tmp/psql.err")"
}
# authenticated LOG USER METHOD: the server's log, from line $mark on, says
# USER was authenticated by METHOD (log_connections, PostgreSQL 14 and later).
authenticated() {
    local from=$(( mark + 1 ))
    tail -n "+$from" -- "$1" | grep -qF -- "connection authenticated: identity=\"$2\" method=$3" \
        || fail "the server's log has no 'identity=\"$2\" method=$3' line: $(tail -n "+$from" -- "$1" | grep -F 'connection' | tail -n 3)"
}
mark_log() { mark=$(wc -l <"$1"); }

# roles NAME: the md5 and scram checks on server NAME (its variables set).
roles() {
    local name=$1 log=$tmp/$1/log/postgresql.log
    [[ $PGPASSFILE == "$tmp/$name/pgpass" ]] || fail "PGPASSFILE is $PGPASSFILE, not $tmp/$name/pgpass"
    [[ $(stat -c %a -- "$PGPASSFILE") == 600 ]] || fail "the passfile is not 0600"
    ok "$name: PGPASSFILE $PGPASSFILE, mode 0600"
    q "user=postgres" "ALTER SYSTEM SET log_connections = on" >/dev/null
    q "user=postgres" "SELECT pg_reload_conf()" >/dev/null
    sleep 0.3
    got=$(q "user=postgres" "SELECT string_agg(rolname || '=' || left(rolpassword, 14), ' ' ORDER BY rolname)
                             FROM pg_authid WHERE rolname LIKE 'pgcb%' AND rolpassword IS NOT NULL")
    [[ $got =~ ^pgcb_md5=md5[0-9a-f]{11}\ pgcb_scram=SCRAM-SHA-256\$$ ]] \
        || fail "stored passwords: $got"
    ok "$name: pgcb_md5's password is stored as MD5, pgcb_scram's as SCRAM-SHA-256"
    local role method where conn
    for role in md5 scram; do
        method=$role
        [[ $role == scram ]] && method=scram-sha-256
        for where in socket tcp; do
            conn="user=pgcb_$role"
            [[ $where == tcp ]] && conn+=" host=127.0.0.1 port=$PGCB_TCP_PORT"
            [[ $where == tcp ]] && where="TCP"
            [[ $where == TCP && -n ${PGCB_SSL_ROOTCERT:-} ]] && conn+=" sslmode=verify-full" && where="TCP with TLS"
            mark_log "$log"
            got=$(q "$conn" "SELECT current_user")
            [[ $got == "pgcb_$role" ]] || fail "$conn: current_user '$got'"
            authenticated "$log" "pgcb_$role" "$method"
            ok "$name: pgcb_$role logs in by $method ($where)"
        done
        PGPASSFILE=$tmp/none refused "user=pgcb_$role" "no password supplied"
        ok "$name: pgcb_$role without the passfile: no password supplied"
        sed "s/:pgcb_$role:.*/:pgcb_$role:wrong-password/" -- "$PGPASSFILE" >"$tmp/wrong"
        chmod 0600 "$tmp/wrong"
        PGPASSFILE=$tmp/wrong refused "user=pgcb_$role" "password authentication failed for user \"pgcb_$role\""
        ok "$name: pgcb_$role with a wrong password in the passfile is refused"
    done
    got=$(PGPASSFILE=$tmp/none q "user=postgres" "SELECT current_user")
    [[ $got == postgres ]] || fail "postgres without a passfile: '$got'"
    ok "$name: postgres logs in without a password (trust)"
    # As [server] setup does: the table is made by postgres after the start.
    q "user=postgres" "CREATE TABLE auth_check AS SELECT generate_series(1, 5) AS i" >/dev/null
    for role in md5 scram; do
        got=$(q "user=pgcb_$role" "SELECT count(*) FROM auth_check")
        [[ $got == 5 ]] || fail "pgcb_$role reads $got rows of a table postgres made"
        if psql -X -w -At -d "user=pgcb_$role dbname=pgcb" -c "INSERT INTO auth_check VALUES (6)" \
                >/dev/null 2>"$tmp/psql.err"; then
            fail "pgcb_$role could write a table postgres made"
        fi
        grep -qF "permission denied" "$tmp/psql.err" || fail "pgcb_$role INSERT: $(cat "$tmp/psql.err")"
    done
    ok "$name: the roles may SELECT a table postgres made after the start, not INSERT into it"
}

# ---- --ssl --------------------------------------------------------------
start s1 --ssl
(
    eval "$line"
    # shellcheck disable=SC2153 # set by eval "$line"
    [[ ${PGSSLROOTCERT:-} == "$PGCB_SSL_ROOTCERT" && -n $PGSSLROOTCERT ]] \
        || fail "--ssl: PGSSLROOTCERT '${PGSSLROOTCERT:-}' is not PGCB_SSL_ROOTCERT"
    ok "s1: PGSSLROOTCERT is the CA ($PGSSLROOTCERT)"
    roles s1
    log=$tmp/s1/log/postgresql.log
    tls="host=localhost port=$PGCB_TCP_PORT sslmode=verify-full"
    mark_log "$log"
    got=$(q "$tls user=pgcb_cert sslcert=$PGCB_SSL_CERT sslkey=$PGCB_SSL_KEY" \
        "SELECT current_user || ' ' || ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
    [[ $got == "pgcb_cert true" ]] || fail "pgcb_cert with the certificate: '$got'"
    authenticated "$log" CN=pgcb_cert cert
    ok "s1: pgcb_cert logs in by its client certificate over TLS (method=cert)"
    refused "$tls user=pgcb_cert" "connection requires a valid client certificate"
    ok "s1: pgcb_cert without a client certificate is refused"
    refused "user=pgcb_cert" "pg_hba.conf rejects connection"
    refused "host=127.0.0.1 port=$PGCB_TCP_PORT sslmode=disable user=pgcb_cert" "pg_hba.conf rejects connection"
    ok "s1: pgcb_cert on the socket and over TCP without TLS is refused"
) || exit 1
"$pgserver" stop "$tmp/s1" 2>/dev/null || fail "stop of the --ssl server failed"
[[ ! -e $tmp/s1 ]] || fail "stop left $tmp/s1 (with its passfile)"
ok "s1: stop removed the server and its passfile"

# ---- --tcp, no TLS ------------------------------------------------------
start s2 --tcp
(
    eval "$line"
    [[ -z ${PGSSLROOTCERT:-} ]] || fail "--tcp: the export line names PGSSLROOTCERT"
    roles s2
    got=$(q "user=postgres" "SELECT count(*) FROM pg_roles WHERE rolname = 'pgcb_cert'")
    [[ $got == 0 ]] || fail "--tcp: a pgcb_cert role exists without --ssl"
    ok "s2: no pgcb_cert role without --ssl"
) || exit 1
"$pgserver" stop "$tmp/s2" 2>/dev/null || fail "stop of the --tcp server failed"

printf '%s: all %d checks passed\n' "$prog" "$(wc -l <"$tmp/passed")"
