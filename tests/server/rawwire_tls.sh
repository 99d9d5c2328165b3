#!/usr/bin/env bash
# rawwire's TLS against libpq's, on two throw-away servers of its own
# (scripts/pgserver.sh): one with TLS (--ssl: a CA and certificates made at
# start), one with TCP but no TLS (--tcp). Every case is run with rawwire and
# with libpq_sync (build/tests/test_rawwire_tls probe) and both must end the
# same way -- connected with TLS, connected in clear text, or refused, with
# rawwire's one-line message naming the reason:
#   - every sslmode against both servers (require and verify-* against the
#     server without TLS fail, prefer and allow fall back);
#   - verify-ca / verify-full without a root certificate, with a wrong CA,
#     verify-full against a host name the certificate does not name, and by
#     IP address; prefer with a wrong CA falls back to clear text;
#   - allow / prefer against users pg_hba.conf admits only with / without TLS;
#   - a client certificate where the server asks for one (cert auth): given,
#     missing, its key with loose permissions, missing, encrypted (sslpassword
#     right and wrong); an unreadable certificate, a garbage root file;
#   - ssl_min/max_protocol_version, the PG* variables;
#   - SCRAM with channel binding (require, disable; require without TLS and
#     with trust fail);
#   - checksums of the benchmark rows over TLS equal to the socket's (text and
#     binary, depth 10), a pipelined batch that fills the socket both ways,
#     the floor over TLS, and a whole runner run over TLS;
#   - no message quotes the password.
#           tests/server/rawwire_tls.sh BUILD_DIR
set -euo pipefail

build=${1:?usage: rawwire_tls.sh BUILD_DIR}
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd -- "$build" && pwd)
prog=rawwire_tls.sh
probe=$build/tests/test_rawwire_tls
[[ -x $probe ]] || { echo "$prog: $probe not built" >&2; exit 1; }
command -v openssl >/dev/null || { echo "$prog: openssl is not installed (scripts/install-deps.sh installs it)" >&2; exit 1; }

# Our own servers: the caller's PG* variables name another one; no
# ~/.postgresql of the caller's may change what libpq does (HOME below).
. "$root/tests/lib/own_servers.sh"
own_servers rw-tls
start() { # DIR FLAG -> the export line's variables, prefixed
    "$root/scripts/pgserver.sh" start "$1" "$2" 2>"$1.log" \
        || { cat "$1.log" >&2; echo "$prog: could not start a server ($2)" >&2; exit 1; }
}
eval "$(start "$tmp/a" --ssl)"
sock_a=$PGHOST port_a=$PGCB_TCP_PORT ca=$PGCB_SSL_ROOTCERT cert=$PGCB_SSL_CERT key=$PGCB_SSL_KEY
eval "$(start "$tmp/b" --tcp)"
port_b=$PGCB_TCP_PORT
unset PGHOST PGPORT PGUSER PGDATABASE PGCB_SERVER_CPUS PGCB_TCP_HOST PGCB_TCP_PORT \
      PGCB_SSL_ROOTCERT PGCB_SSL_CERT PGCB_SSL_KEY PGSSLROOTCERT PGPASSFILE
export HOME=$tmp/home PGCB_BUILD=$build
mkdir -p "$HOME"

password='tls s3cret:pw'
admin() { psql -X -q -v ON_ERROR_STOP=1 -h "$sock_a" -p "$port_a" -U postgres -d pgcb "$@"; }
admin -c "CREATE TABLE benchmark_rows AS SELECT i AS id, 1337 AS int_value, 'wat'::text AS string_value,
          NULL::text AS null_value, false AS bool_value FROM generate_series(1, 500) AS i" \
      -c "CREATE ROLE certuser LOGIN" -c "CREATE ROLE tlsonly LOGIN" -c "CREATE ROLE plainonly LOGIN" \
      -c "SET password_encryption = 'scram-sha-256'" \
      -c "CREATE ROLE scramuser LOGIN PASSWORD '$password'"
data=$tmp/a/data
cat >"$data/pg_hba.conf" <<'EOF'
local     all all                       trust
hostssl   all certuser  127.0.0.1/32    cert map=anycn
hostnossl all certuser  127.0.0.1/32    reject
hostssl   all tlsonly   127.0.0.1/32    trust
hostnossl all tlsonly   127.0.0.1/32    reject
hostnossl all plainonly 127.0.0.1/32    trust
hostssl   all plainonly 127.0.0.1/32    reject
host      all scramuser 127.0.0.1/32    scram-sha-256
host      all all       127.0.0.1/32    trust
EOF
printf 'anycn /^.*$ certuser\n' >"$data/pg_ident.conf"
chown --reference="$data/PG_VERSION" "$data/pg_hba.conf" "$data/pg_ident.conf"
admin -c "SELECT pg_reload_conf()" >/dev/null
sleep 0.5

# Files for the bad cases: a key with group/world access, an encrypted key,
# a CA nobody signed with, a garbage root file.
cp "$key" "$tmp/key644"; chmod 0644 "$tmp/key644"
openssl pkey -in "$key" -aes256 -passout pass:keypw -out "$tmp/key.enc" 2>/dev/null
chmod 0600 "$tmp/key.enc"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=not our CA" \
    -keyout "$tmp/other-ca.key" -out "$tmp/other-ca.crt" >/dev/null 2>&1
printf 'not a certificate\n' >"$tmp/garbage.crt"

A="host=localhost port=$port_a user=postgres dbname=pgcb"
B="host=127.0.0.1 port=$port_b user=postgres dbname=pgcb"
SSL_SQL="SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"
failures=0 cases=0
ok() { printf '  ok   %s\n' "$*"; }
bad() { printf '  FAIL %s\n' "$*" >&2; failures=$((failures + 1)); }
run() { "$probe" probe "$@"; } # DRIVER CONNINFO [SQL [DEPTH [FORMAT]]]

# The ssl column's checksums, from libpq itself.
tls_on=$(run libpq_sync "$A sslmode=require" "$SSL_SQL")
tls_off=$(run libpq_sync "$A sslmode=disable" "$SSL_SQL")
[[ $tls_on == ok* && $tls_off == ok* && $tls_on != "$tls_off" ]] \
    || { echo "$prog: libpq's reference lines: '$tls_on' '$tls_off'" >&2; exit 1; }

# case NAME CONNINFO EXPECT: EXPECT is tls, plain or fail:PHRASE
case_() {
    local name=$1 ci=$2 want=$3 r l
    cases=$((cases + 1))
    r=$(run rawwire "$ci" "$SSL_SQL"); l=$(run libpq_sync "$ci" "$SSL_SQL")
    if [[ $r == *"$password"* || $r == *s3cret* ]]; then
        bad "$name: rawwire's message quotes the password: $r"; return
    fi
    case $want in
    tls|plain)
        local ref=$tls_on; [[ $want == plain ]] && ref=$tls_off
        if [[ $r == "$ref" && $l == "$ref" ]]; then ok "$name: $want, as libpq"
        else bad "$name: want $want; rawwire '$r', libpq '$l'"; fi ;;
    fail:*)
        local phrase=${want#fail:}
        if [[ $r == fail* && $l == fail* && $r == *"$phrase"* && $r != *$'\n'* ]]; then
            ok "$name: refused as libpq (${r#fail [0-9] })"
        else bad "$name: want both refused with '$phrase'; rawwire '$r', libpq '$l'"; fi ;;
    esac
}

echo "sslmode against a server with TLS"
case_ "disable" "$A sslmode=disable" plain
case_ "allow" "$A sslmode=allow" plain
case_ "prefer" "$A sslmode=prefer" tls
case_ "default (prefer)" "$A" tls
case_ "require" "$A sslmode=require" tls
case_ "requiressl=1" "$A requiressl=1" tls
case_ "verify-ca without a root certificate" "$A sslmode=verify-ca" "fail:root certificate file \"$HOME/.postgresql/root.crt\" does not exist"
case_ "verify-full without a root certificate" "$A sslmode=verify-full" "fail:root certificate file"
case_ "verify-ca" "$A sslmode=verify-ca sslrootcert=$ca" tls
case_ "verify-full" "$A sslmode=verify-full sslrootcert=$ca" tls
case_ "verify-full by IP address" "host=127.0.0.1 port=$port_a user=postgres dbname=pgcb sslmode=verify-full sslrootcert=$ca" tls
case_ "verify-full, wrong host name" "host=wrong.example hostaddr=127.0.0.1 port=$port_a user=postgres dbname=pgcb sslmode=verify-full sslrootcert=$ca" \
      'fail:server certificate for "localhost" (and 1 other name) does not match host name "wrong.example"'
case_ "verify-ca, wrong host name" "host=wrong.example hostaddr=127.0.0.1 port=$port_a user=postgres dbname=pgcb sslmode=verify-ca sslrootcert=$ca" tls
case_ "require, wrong CA" "$A sslmode=require sslrootcert=$tmp/other-ca.crt" "fail:certificate verify failed"
case_ "verify-ca, wrong CA" "$A sslmode=verify-ca sslrootcert=$tmp/other-ca.crt" "fail:certificate verify failed"
case_ "prefer, wrong CA (falls back)" "$A sslmode=prefer sslrootcert=$tmp/other-ca.crt" plain
case_ "require, garbage root file" "$A sslmode=require sslrootcert=$tmp/garbage.crt" "fail:could not read root certificate file"
case_ "allow, a TLS-only user" "$A sslmode=allow user=tlsonly" tls
case_ "prefer, a clear-text-only user" "$A sslmode=prefer user=plainonly" plain
case_ "require, a clear-text-only user" "$A sslmode=require user=plainonly" "fail:pg_hba.conf"
case_ "disable, a TLS-only user" "$A sslmode=disable user=tlsonly" "fail:pg_hba.conf"
case_ "TLSv1.2 at most" "$A sslmode=require ssl_max_protocol_version=TLSv1.2" tls
case_ "TLSv1.3 at least" "$A sslmode=require ssl_min_protocol_version=TLSv1.3" tls
case_ "no SNI" "$A sslmode=require sslsni=0" tls
case_ "bad sslmode" "$A sslmode=requir" "fail:invalid sslmode value"
case_ "bad protocol version" "$A sslmode=require ssl_min_protocol_version=TLSv1.4" "fail:invalid ssl_min_protocol_version value"

echo "client certificates"
case_ "certificate auth" "$A user=certuser sslmode=verify-full sslrootcert=$ca sslcert=$cert sslkey=$key" tls
case_ "certificate auth, no certificate" "$A user=certuser sslmode=require" "fail:certificate"
case_ "key with group/world access" "$A user=certuser sslmode=require sslcert=$cert sslkey=$tmp/key644" "fail:has group or world access"
case_ "missing key" "$A user=certuser sslmode=require sslcert=$cert sslkey=$tmp/nokey" "fail:certificate present, but not private key file"
case_ "unreadable certificate" "$A sslmode=require sslcert=$tmp" "fail:could not read certificate file"
case_ "encrypted key, sslpassword" "$A user=certuser sslmode=require sslcert=$cert sslkey=$tmp/key.enc sslpassword=keypw" tls
case_ "encrypted key, wrong sslpassword" "$A user=certuser sslmode=require sslcert=$cert sslkey=$tmp/key.enc sslpassword=nope" "fail:could not load private key file"

echo "the PG* variables"
env_case() {
    local r l ref=$tls_on
    cases=$((cases + 1))
    r=$(env "$@" "$probe" probe rawwire "host=localhost port=$port_a dbname=pgcb" "$SSL_SQL")
    l=$(env "$@" "$probe" probe libpq_sync "host=localhost port=$port_a dbname=pgcb" "$SSL_SQL")
    if [[ $r == "$ref" && $l == "$ref" ]]; then ok "env $*: tls, as libpq"; else bad "env $*: rawwire '$r', libpq '$l'"; fi
}
env_case PGUSER=certuser PGSSLMODE=verify-full PGSSLROOTCERT="$ca" PGSSLCERT="$cert" PGSSLKEY="$key"
env_case PGUSER=postgres PGREQUIRESSL=1 PGSSLMINPROTOCOLVERSION=TLSv1.3

echo "SCRAM and channel binding"
S="host=localhost port=$port_a user=scramuser dbname=pgcb password='tls s3cret:pw'"
case_ "SCRAM over TLS, channel_binding=require" "$S sslmode=require channel_binding=require" tls
case_ "SCRAM over TLS, channel_binding=disable" "$S sslmode=require channel_binding=disable" tls
case_ "SCRAM over TLS, default (prefer)" "$S sslmode=verify-full sslrootcert=$ca" tls
case_ "channel_binding=require without TLS" "$S sslmode=disable channel_binding=require" "fail:channel binding required, but SSL not in use"
case_ "channel_binding=require with trust" "$A sslmode=require channel_binding=require" "fail:channel binding required, but server authenticated client without channel binding"
case_ "SCRAM, wrong password over TLS" "host=localhost port=$port_a user=scramuser dbname=pgcb password=wrong sslmode=require" "fail:28P01"

echo "sslmode against a server without TLS"
case_ "disable" "$B sslmode=disable" plain
case_ "allow" "$B sslmode=allow" plain
case_ "prefer" "$B sslmode=prefer" plain
case_ "require" "$B sslmode=require" "fail:server does not support SSL, but SSL was required"
case_ "verify-ca" "$B sslmode=verify-ca sslrootcert=$ca" "fail:server does not support SSL, but SSL was required"
case_ "verify-full" "$B sslmode=verify-full sslrootcert=$ca" "fail:server does not support SSL, but SSL was required"

echo "what is read over TLS"
V="SELECT version, cipher FROM pg_stat_ssl WHERE pid = pg_backend_pid()"
for ver in "" "ssl_max_protocol_version=TLSv1.2"; do
    cases=$((cases + 1))
    r=$(run rawwire "$A sslmode=require $ver" "$V"); l=$(run libpq_sync "$A sslmode=require $ver" "$V")
    if [[ $r == ok* && $r == "$l" ]]; then ok "TLS version and cipher ${ver:-(default)}: as libpq's"
    else bad "TLS version and cipher ${ver:-(default)}: rawwire '$r', libpq '$l'"; fi
done
bench="SELECT id, int_value, string_value, null_value, bool_value FROM benchmark_rows ORDER BY id LIMIT 500"
for fmt in text binary; do
    cases=$((cases + 1))
    u=$(run rawwire "host=$sock_a port=$port_a user=postgres dbname=pgcb" "$bench" 10 "$fmt")
    r=$(run rawwire "$A sslmode=verify-full sslrootcert=$ca" "$bench" 10 "$fmt")
    l=$(run libpq_sync "$A sslmode=verify-full sslrootcert=$ca" "$bench" 10 "$fmt")
    if [[ $u == "ok 5000 "* && $r == "$u" && $l == "$u" ]]; then ok "500 rows x 10, $fmt: the socket's checksum over TLS"
    else bad "500 rows x 10, $fmt: unix '$u', rawwire TLS '$r', libpq TLS '$l'"; fi
done
cases=$((cases + 1))
big="SELECT i, repeat('x', 40) FROM generate_series(1, 50) AS i"
r=$(run rawwire "$A sslmode=require" "$big" 3000); l=$(run libpq_sync "$A sslmode=require" "$big" 3000)
if [[ $r == "ok 150000 "* && $r == "$l" ]]; then ok "3000 queries in flight over TLS (the socket full both ways): as libpq"
else bad "3000 queries in flight over TLS: rawwire '$r', libpq '$l'"; fi
cases=$((cases + 1))
f=$(run floor "$A sslmode=require" "$bench" 10)
if [[ $f == "ok "* ]]; then ok "the floor over TLS: $f"; else bad "the floor over TLS: $f"; fi

cases=$((cases + 1))
cat >"$tmp/run.ini" <<EOF
[bench]
time_ms = 200
queries = 20
warmup_ms = 0
output = $tmp/run.json
[driver.libpq_sync]
path = $build/drivers/libpq_sync.so
[driver.rawwire]
path = $build/drivers/rawwire.so
[driver.floor]
path = $build/drivers/floor.so
[query.limit_500]
sql = $bench
rows = 500
[suite.tls]
depth = 1 10
EOF
if PGCB_CONNINFO="$A sslmode=verify-full sslrootcert=$ca" "$build/runner" -c "$tmp/run.ini" >"$tmp/run.out" 2>&1 \
   && grep -q '"limit_500"' "$tmp/run.json"; then
    ok "a runner run over TLS (libpq_sync, rawwire, floor; depth 1 and 10)"
else
    tail -n 20 "$tmp/run.out" >&2; bad "a runner run over TLS"
fi

echo "$prog: $((cases - failures)) of $cases cases as expected"
((failures == 0))
