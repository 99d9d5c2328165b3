# shellcheck shell=bash
# tests/lib/own_servers.sh -- sourced by the server tests that start
# throw-away servers of their own (scripts/pgserver.sh) instead of using the
# one tests/run.sh started:
#
#   own_servers NAME   sets $tmp to a new directory /tmp/NAME.XXXXXX that the
#                      server's user can read (it may run as postgres when we
#                      are root); on exit every server started in a directory
#                      of it is stopped and it is removed. The caller's PG*
#                      variables are unset: they name another server, or would
#                      change what libpq does (sslmode, certificates, passfile).

own_servers_pgserver=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../../scripts" && pwd)/pgserver.sh

own_servers_cleanup() {
    local s
    for s in "$tmp"/*/; do
        [[ -d $s/data ]] && { "$own_servers_pgserver" stop "${s%/}" >/dev/null 2>&1 || true; }
    done
    rm -rf -- "$tmp"
}

own_servers() {
    tmp=$(mktemp -d "/tmp/$1.XXXXXX")
    chmod 0755 "$tmp"
    trap own_servers_cleanup EXIT
    unset PGHOST PGPORT PGUSER PGDATABASE PGPASSWORD PGPASSFILE PGCB_CONNINFO PGHOSTADDR PGSERVICE \
          PGSSLMODE PGSSLROOTCERT PGSSLCERT PGSSLKEY PGSSLCRL PGSSLCRLDIR PGSSLSNI PGREQUIRESSL \
          PGCHANNELBINDING PGSSLMINPROTOCOLVERSION PGSSLMAXPROTOCOLVERSION
}
