#!/usr/bin/env bash
# The throw-away server's TCP and TLS (scripts/pgserver.sh start --tcp / --ssl),
# checked with libpq's psql against servers of its own, in a temporary
# directory:
#   - --ssl: the export line names the TCP port and the certificates; over TCP
#     sslmode=verify-full with the CA connects with TLS (pg_stat_ssl), and
#     sslmode=disable connects without it; the client certificate is seen
#     (client_dn /CN=pgcb_cert, the role of cert authentication:
#     pgserver_auth.sh); verify-full against another host name, and
#     verify-ca against another CA, fail with libpq's reasons; the socket
#     still works; stop removes the certificates with the rest;
#   - --tcp without --ssl: sslmode=require fails ("does not support SSL"),
#     prefer connects in clear; a second server started beside it gets
#     another port;
#   - neither: the server listens on no TCP address.
#           tests/server/pgserver_tls.sh BUILD_DIR   (BUILD_DIR unused)
# pgcb-test: plain build only: it tests scripts/pgserver.sh, the same in every build
set -euo pipefail

root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
prog=pgserver_tls.sh
pgserver=$root/scripts/pgserver.sh
. "$root/tests/lib/own_servers.sh"
own_servers pgcb-tls

fail() { printf '%s: FAILED: %s\n' "$prog" "$*" >&2; exit 1; }
# One line per check passed, also from the subshells (each server's
# variables live in one).
ok() { printf '%s: ok: %s\n' "$prog" "$*" | tee -a "$tmp/passed"; }

# start NAME OPTIONS...: start server NAME; its export line into $line.
start() {
    local name=$1; shift
    line=$("$pgserver" start "$tmp/$name" "$@" 2>"$tmp/$name.log") \
        || { cat "$tmp/$name.log" >&2; fail "pgserver.sh start $* did not start"; }
}

# q CONNINFO SQL: one value, or fail with psql's message.
q() { psql -X -At -d "$1 dbname=pgcb user=postgres connect_timeout=10" -c "$2" 2>"$tmp/psql.err" \
        || fail "psql '$1' failed: $(cat "$tmp/psql.err")"; }
# refused CONNINFO WANT: psql must fail, and its message must contain WANT.
refused() {
    if psql -X -At -d "$1 dbname=pgcb user=postgres connect_timeout=10" -c 'SELECT 1' \
            >/dev/null 2>"$tmp/psql.err"; then
        fail "psql '$1' connected; it must fail with '$2'"
    fi
    grep -qF -- "$2" "$tmp/psql.err" || fail "psql '$1' failed, but not with '$2': $(cat "$tmp/psql.err")"
}

# ---- --ssl --------------------------------------------------------------
start s1 --ssl
(
    eval "$line"
    for v in PGCB_TCP_HOST PGCB_TCP_PORT PGCB_SSL_ROOTCERT PGSSLROOTCERT PGCB_SSL_CERT PGCB_SSL_KEY; do
        [[ -n ${!v:-} ]] || fail "--ssl: the export line has no $v: $line"
    done
    # shellcheck disable=SC2153 # set by eval "$line"
    [[ $PGCB_TCP_HOST == 127.0.0.1 && $PGCB_TCP_PORT == "$PGPORT" ]] \
        || fail "--ssl: TCP $PGCB_TCP_HOST:$PGCB_TCP_PORT, socket port $PGPORT"
    [[ $PGSSLROOTCERT == "$PGCB_SSL_ROOTCERT" ]] \
        || fail "--ssl: PGSSLROOTCERT $PGSSLROOTCERT is not PGCB_SSL_ROOTCERT $PGCB_SSL_ROOTCERT"
    [[ ! -e $tmp/s1/tls/ca.key ]] || fail "--ssl: the CA's key is left in $tmp/s1/tls"
    [[ $(stat -c %a "$PGCB_SSL_KEY") == 600 ]] || fail "--ssl: the client key is not 0600"
    tcp="host=$PGCB_TCP_HOST port=$PGCB_TCP_PORT"
    got=$(q "$tcp sslmode=verify-full sslrootcert=$PGCB_SSL_ROOTCERT" \
        "SELECT ssl, version FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
    [[ $got =~ ^t\|TLSv1\.[23]$ ]] || fail "verify-full over TCP: pg_stat_ssl says '$got'"
    ok "--ssl: verify-full over TCP with the CA: TLS (${got#t|})"
    got=$(q "$tcp sslmode=disable" "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
    [[ $got == f ]] || fail "sslmode=disable over TCP: pg_stat_ssl says '$got'"
    ok "--ssl: sslmode=disable over TCP: no TLS"
    got=$(q "host=localhost port=$PGCB_TCP_PORT sslmode=verify-full sslrootcert=$PGCB_SSL_ROOTCERT \
sslcert=$PGCB_SSL_CERT sslkey=$PGCB_SSL_KEY" \
        "SELECT client_dn FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
    [[ $got == /CN=pgcb_cert ]] || fail "client certificate: client_dn '$got'"
    ok "--ssl: the client certificate is seen (client_dn $got), host name localhost verified"
    refused "host=wrong.example hostaddr=127.0.0.1 port=$PGCB_TCP_PORT sslmode=verify-full \
sslrootcert=$PGCB_SSL_ROOTCERT" 'does not match host name "wrong.example"'
    ok "--ssl: verify-full against another host name fails"
    openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=another CA" \
        -keyout "$tmp/other.key" -out "$tmp/other.crt" >/dev/null 2>&1 || fail "openssl: no other CA"
    refused "$tcp sslmode=verify-ca sslrootcert=$tmp/other.crt" "certificate verify failed"
    ok "--ssl: verify-ca against another CA fails"
    got=$(q "host=$PGHOST port=$PGPORT" "SELECT 1")
    [[ $got == 1 ]] || fail "--ssl: the unix socket answers '$got'"
    ok "--ssl: the unix socket still answers"
) || exit 1
"$pgserver" stop "$tmp/s1" 2>/dev/null || fail "stop of the --ssl server failed"
[[ ! -e $tmp/s1 ]] || fail "stop left $tmp/s1 (with its certificates)"
ok "--ssl: stop removed the server and its certificates"

# ---- --tcp without TLS --------------------------------------------------
start s2 --tcp
line2=$line
start s3 --tcp
(
    eval "$line2"
    p2=$PGCB_TCP_PORT
    [[ -z ${PGCB_SSL_ROOTCERT:-}${PGSSLROOTCERT:-} ]] || fail "--tcp: the export line names certificates: $line2"
    refused "host=127.0.0.1 port=$p2 sslmode=require" "server does not support SSL"
    ok "--tcp: sslmode=require against a server without TLS fails"
    got=$(q "host=127.0.0.1 port=$p2 sslmode=prefer" \
        "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
    [[ $got == f ]] || fail "--tcp: sslmode=prefer: pg_stat_ssl says '$got'"
    ok "--tcp: sslmode=prefer connects in clear"
    eval "$line"
    [[ $PGCB_TCP_PORT != "$p2" ]] || fail "two --tcp servers share port $p2"
    got=$(q "host=127.0.0.1 port=$PGCB_TCP_PORT" "SELECT current_setting('data_directory')")
    [[ $got == "$tmp/s3/data" ]] || fail "the second server's port reaches '$got'"
    ok "--tcp: a second server gets its own port ($p2, then $PGCB_TCP_PORT)"
) || exit 1
"$pgserver" stop "$tmp/s2" 2>/dev/null
"$pgserver" stop "$tmp/s3" 2>/dev/null

# ---- neither ------------------------------------------------------------
start s4
(
    eval "$line"
    [[ -z ${PGCB_TCP_PORT:-} ]] || fail "no --tcp: the export line names a TCP port: $line"
    got=$(q "host=$PGHOST port=$PGPORT" "SHOW listen_addresses")
    [[ -z $got ]] || fail "no --tcp: listen_addresses is '$got'"
    ok "no --tcp: the server listens on no TCP address (listen_addresses '')"
) || exit 1
"$pgserver" stop "$tmp/s4" 2>/dev/null

printf '%s: all %d checks passed\n' "$prog" "$(wc -l <"$tmp/passed")"
