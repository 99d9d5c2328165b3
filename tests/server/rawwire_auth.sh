#!/usr/bin/env bash
# rawwire's authentication against a real server: its OWN throw-away cluster
# (scripts/pgserver.sh, in a temporary directory), pg_hba.conf set in turn to
# trust, password, md5 and scram-sha-256 (password_encryption set to match
# before the users' passwords are set), and for each method:
#   - rawwire connects with the password in the conninfo, from PGPASSWORD and
#     from a password file, and runs queries (build/tests/test_rawwire_connect);
#   - a wrong password is one clear error containing 28P01 (not for trust),
#     also with a second host after the server (libpq does not try it);
#   - for scram-sha-256, a whole runner run with rawwire (tiny budget) exits 0.
#           tests/server/rawwire_auth.sh BUILD_DIR
set -euo pipefail

build=${1:?usage: rawwire_auth.sh BUILD_DIR}
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd -- "$build" && pwd)
prog=rawwire_auth.sh
check=$build/tests/test_rawwire_connect
[[ -x $check ]] || { echo "$prog: $check not built" >&2; exit 1; }
[[ -x $build/runner ]] || { echo "$prog: $build/runner not built" >&2; exit 1; }

# Our own server: the caller's PG* variables name another one.
. "$root/tests/lib/own_servers.sh"
own_servers rw-auth
srv=$tmp/srv
env_line=$("$root/scripts/pgserver.sh" start "$srv" 2>"$tmp/pgserver.log") \
    || { cat "$tmp/pgserver.log" >&2; echo "$prog: could not start the server" >&2; exit 1; }
eval "$env_line"
host=$PGHOST port=$PGPORT
unset PGHOST PGPORT PGUSER PGDATABASE PGCB_SERVER_CPUS
export PGCB_BUILD=$build

admin() { psql -X -q -v ON_ERROR_STOP=1 -h "$host" -p "$port" -U postgres -d pgcb "$@"; }
admin -c "CREATE TABLE benchmark_rows AS SELECT i AS id, 1337 AS int_value, 'wat'::text AS string_value,
          NULL::text AS null_value, false AS bool_value FROM generate_series(1, 500) AS i" \
      -c "CREATE ROLE rw_user LOGIN" -c "GRANT SELECT ON benchmark_rows TO rw_user"

failures=0
ok() { printf '  ok   %s\n' "$*"; }
bad() { printf '  FAIL %s\n' "$*" >&2; failures=$((failures + 1)); }

# hba METHOD: postgres keeps trust (for this script), everyone else METHOD.
hba() {
    local data=$srv/data
    printf 'local all postgres trust\nlocal all all %s\n' "$1" >"$data/pg_hba.conf"
    chown --reference="$data/PG_VERSION" "$data/pg_hba.conf"
    admin -c "SELECT pg_reload_conf()" >/dev/null
    # the postmaster reloads asynchronously (SIGHUP); new backends then
    # use the new rules
    sleep 0.5
}

password='s3cret pass:wörd'   # a space, a colon (passfile escaping), UTF-8 only for non-SCRAM
ascii_password='s3cret pass:word\x'

base="host=$host port=$port dbname=pgcb user=rw_user"

for method in trust password md5 scram-sha-256; do
    echo "$prog: pg_hba.conf method $method"
    pw=$ascii_password
    enc=scram-sha-256
    [[ $method == md5 ]] && enc=md5
    [[ $method == password ]] && pw=$password   # cleartext: any bytes go
    admin -c "SET password_encryption = '$enc'" -c "ALTER ROLE rw_user PASSWORD \$pw\$$pw\$pw\$"
    hba "$method"
    q=${pw//\\/\\\\}; q=${q//\'/\\\'}

    if out=$("$check" "$base password='$q'" 2>&1); then ok "password in the conninfo"; else bad "password in the conninfo: $out"; fi
    if out=$(PGPASSWORD=$pw "$check" "$base" 2>&1); then ok "PGPASSWORD"; else bad "PGPASSWORD: $out"; fi
    pf=$tmp/pgpass
    e=${pw//\\/\\\\}; e=${e//:/\\:}
    printf '# comment\nother:*:*:*:nope\n%s:%s:pgcb:rw_user:%s\n' "$host" "$port" "$e" >"$pf"
    chmod 0600 "$pf"
    if out=$("$check" "$base passfile=$pf" 2>&1); then ok "passfile"; else bad "passfile: $out"; fi
    if out=$(PGPASSFILE=$pf "$check" "$base" 2>&1); then ok "PGPASSFILE"; else bad "PGPASSFILE: $out"; fi
    if [[ $method != trust ]]; then
        if out=$("$check" "$base password=wrong" 28P01 2>&1); then
            ok "wrong password: ${out#expected error: }"
        else
            bad "wrong password: $out"
        fi
        # libpq stops at an authentication failure: the next host is not tried
        if out=$("$check" "host=$host,/nonexistent-rw-dir port=$port dbname=pgcb user=rw_user password=wrong" 28P01 2>&1); then
            ok "wrong password with two hosts: stops at the first"
        else
            bad "wrong password with two hosts: $out"
        fi
        if out=$("$check" "$base" "no password was supplied" 2>&1); then ok "no password: clear error"; else bad "no password: $out"; fi
        chmod 0644 "$pf"
        if out=$("$check" "$base passfile=$pf" "group or world access" 2>&1); then ok "passfile with group access ignored"; else bad "passfile 0644: $out"; fi
    fi
    if [[ $method == scram-sha-256 ]]; then
        cat >"$tmp/r.ini" <<INI
[bench]
time_ms = 200
queries = 20
warmup_ms = 0
output = $tmp/r.json
[driver.rawwire]
path = $build/drivers/rawwire.so
[query.limit_1]
sql = SELECT id, int_value, string_value, null_value, bool_value FROM benchmark_rows ORDER BY id LIMIT 1
rows = 1
[query.limit_500]
sql = SELECT id, int_value, string_value, null_value, bool_value FROM benchmark_rows ORDER BY id LIMIT 500
rows = 500
[suite.s]
depth = 1 10
INI
        if out=$(PGCB_CONNINFO="$base password='$q'" "$build/runner" -q -c "$tmp/r.ini" 2>&1) && [[ -s $tmp/r.json ]]; then
            ok "runner with rawwire (scram-sha-256)"
        else
            bad "runner with rawwire: $out"
        fi
    fi
done

# SCRAM with a non-ASCII password: SASLprep (RFC 4013) on both sides, as
# libpq. The server stores the verifier of SASLprep("sëcret"); rawwire
# connects with it as typed (precomposed ë) and decomposed (e + U+0308, which
# only NFKC normalization turns into the same bytes).
echo "$prog: scram-sha-256 with a non-ASCII password (SASLprep)"
admin -c "SET password_encryption = 'scram-sha-256'" -c "ALTER ROLE rw_user PASSWORD \$pw\$sëcret\$pw\$"
hba scram-sha-256
decomposed=$'se\xcc\x88cret'
if out=$("$check" "$base password=sëcret" 2>&1); then ok "sëcret (precomposed)"; else bad "sëcret: $out"; fi
if out=$(PGPASSWORD=$decomposed "$check" "$base" 2>&1); then ok "sëcret (decomposed: NFKC)"; else bad "sëcret decomposed: $out"; fi
if out=$("$check" "$base password=sécret" 28P01 2>&1); then ok "sécret: wrong password"; else bad "sécret: $out"; fi

if ((failures)); then
    echo "$prog: $failures check(s) failed" >&2
    exit 1
fi
echo "$prog: trust, password, md5 and scram-sha-256 (with SASLprep) all work; wrong passwords give 28P01"
