#!/usr/bin/env bash
# Secrets: a password never appears in anything a run produces.
#
# Its OWN throw-away cluster (scripts/pgserver.sh, in a temporary directory),
# pg_hba.conf with scram-sha-256 for every local user but postgres, and a role
# with a distinctive password. For every shipped driver (libpq_sync,
# libpq_pipeline, rawwire, floor) and every way of giving the password:
#   ini        [server] conninfo = ... password=PW
#   env        PGCB_CONNINFO='... password=PW'
#   uri        [server] conninfo = postgresql://USER:PW@/pgcb?host=SOCK&port=N
#   pgpassword PGPASSWORD=PW
#   passfile   [server] conninfo = ... passfile=FILE
#   pgpassfile PGPASSFILE=FILE
#   home       HOME=DIR with DIR/.pgpass
# four runs of BUILD_DIR/runner (one query, BENCH_TIME_MS=50 BENCH_QUERIES=10,
# warmup_ms = 0), each in an empty directory that receives its stdout, stderr
# and JSON result:
#   good       the right password: exit 0 and a result file
#   wrong      a wrong password of the same shape, given the same way: the
#              runner's own connection is refused; exit 1, one line on stderr,
#              nothing on stdout, no result file
#   drvwrong   the right password, but [server] setup (run on the runner's own
#              session, before the drivers connect) changes it: the driver's
#              connection is refused; exit 1, one line on stderr naming the
#              driver, no result file
#   list       --list-drivers with the password given: exit 0
# and three mistakes with a wrong password, whose libpq parse errors quote the
# token or the whole URI (kind "malformed": exit 1, one line on stderr):
#   badpct     postgresql://USER:PW%zz@/pgcb?...  (a bad %-escape)
#   badipv6    postgresql://USER:PW@[/pgcb        (an unclosed IPv6 bracket)
#   unquoted   ... password=PW-HEAD PW-TAIL       (a space, unquoted)
# Every byte in that directory is grepped (case-insensitively, as fixed
# strings) for the password of the run and for every substring of it of 8
# characters (so also every longer one: truncated or re-quoted copies). The
# passwords are "Pgcb-S3cret-" and 12 random letters: no run of digits that a
# latency or checksum could match by chance.
# One line per case, PASS or FAIL; exit status 1 if any failed.
#           tests/server/secrets.sh BUILD_DIR
set -euo pipefail

build=${1:?usage: secrets.sh BUILD_DIR}
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd -- "$build" && pwd)
prog=secrets.sh
runner=$build/runner
drivers=(libpq_sync libpq_pipeline rawwire floor)
ways=(ini env uri pgpassword passfile pgpassfile home)
[[ -x $runner ]] || { echo "$prog: $runner not built" >&2; exit 1; }
for d in "${drivers[@]}"; do
    [[ -f $build/drivers/$d.so ]] || { echo "$prog: $build/drivers/$d.so not built" >&2; exit 1; }
done

tmp=$(mktemp -d /tmp/pgcb-secrets.XXXXXX)
chmod 0755 "$tmp" # the server may run as postgres (when we are root)
srv=$tmp/srv
cleanup() {
    "$root/scripts/pgserver.sh" stop "$srv" >/dev/null 2>&1 || true
    rm -rf -- "$tmp"
}
trap cleanup EXIT

# Our own server: the caller's PG* variables name another one.
unset PGHOST PGPORT PGUSER PGDATABASE PGPASSWORD PGPASSFILE PGCB_CONNINFO PGHOSTADDR PGSERVICE \
      PGSERVICEFILE PGSYSCONFDIR PGCB_SERVER_CPUS BENCH_TIME_MS BENCH_QUERIES
env_line=$("$root/scripts/pgserver.sh" start "$srv" 2>"$tmp/pgserver.log") \
    || { cat "$tmp/pgserver.log" >&2; echo "$prog: could not start the server" >&2; exit 1; }
eval "$env_line"
host=$PGHOST port=$PGPORT
unset PGHOST PGPORT PGUSER PGDATABASE PGCB_SERVER_CPUS

letters() { LC_ALL=C tr -dc 'A-Za-z' </dev/urandom | head -c "$1" || true; }
pw="Pgcb-S3cret-$(letters 12)"      # the right one
wpw="Pgcb-S3cret-$(letters 12)"     # wrong, same shape
rpw="Pgcb-R0tated-$(letters 12)"    # what [server] setup changes it to
[[ ${#pw} == 24 && ${#wpw} == 24 && ${#rpw} == 25 && $pw != "$wpw" ]] \
    || { echo "$prog: could not make random passwords" >&2; exit 1; }
user=pgcb_secret

admin() { psql -X -q -v ON_ERROR_STOP=1 -h "$host" -p "$port" -U postgres -d pgcb "$@"; }
set_password() { admin -c "ALTER ROLE $user PASSWORD '$1'" >/dev/null; }
admin -c "SET password_encryption = 'scram-sha-256'" -c "CREATE ROLE $user LOGIN PASSWORD '$pw'"
data=$srv/data
printf 'local all postgres trust\nlocal all all scram-sha-256\n' >"$data/pg_hba.conf"
chown --reference="$data/PG_VERSION" "$data/pg_hba.conf"
admin -c "SELECT pg_reload_conf()" >/dev/null
sleep 0.5 # the postmaster reloads asynchronously (SIGHUP)

cfg=$tmp/cfg
mkdir -p "$cfg/home-empty" "$cfg/home-good" "$cfg/home-wrong"
printf "ALTER ROLE %s PASSWORD '%s';\n" "$user" "$rpw" >"$cfg/rotate.sql"
# A password file line for PW (no ':' or '\' in the passwords: no escaping).
pgpass() { printf '# pgclientbench secrets test\n%s:%s:pgcb:%s:%s\n' "$host" "$port" "$user" "$1" >"$2"; chmod 0600 "$2"; }
pgpass "$pw" "$cfg/pgpass-good"
pgpass "$wpw" "$cfg/pgpass-wrong"
pgpass "$pw" "$cfg/home-good/.pgpass"
pgpass "$wpw" "$cfg/home-wrong/.pgpass"
base="host=$host port=$port dbname=pgcb user=$user"

# substrings PW: PW and each of its substrings of 8 characters, one a line.
substrings() {
    local p=$1 i
    printf '%s\n' "$p"
    for ((i = 0; i + 8 <= ${#p}; i++)); do printf '%s\n' "${p:i:8}"; done
}
# Both passwords start with Pgcb-S3cret-: what they share is reported apart.
substrings "$pw" | LC_ALL=C sort -u >"$cfg/sub-right"
substrings "$wpw" | LC_ALL=C sort -u >"$cfg/sub-wrong"
LC_ALL=C comm -12 "$cfg/sub-right" "$cfg/sub-wrong" >"$cfg/pat-shared"
LC_ALL=C comm -23 "$cfg/sub-right" "$cfg/sub-wrong" >"$cfg/pat-right"
LC_ALL=C comm -13 "$cfg/sub-right" "$cfg/sub-wrong" >"$cfg/pat-wrong"

# leaks DIR: what of either password is in any file under DIR (nothing: none).
leaks() {
    local what
    for what in right wrong shared; do
        grep -r -a -o -i -F -f "$cfg/pat-$what" -- "$1" | head -n 3 \
            | sed "s|^$1/|($what password$([[ $what == shared ]] && echo "s' prefix")) |" \
            | tr '\n' ' ' || true
    done
}
# The grep itself must find a copy that is cut short and quoted differently.
mkdir -p "$cfg/canary/a" "$cfg/canary/b"
printf "{\"conninfo\": \"password='%s'\"}\n" "${pw:11:10}" >"$cfg/canary/a/x.json"
printf 'error: %s\n' "${wpw^^}" | head -c 30 >"$cfg/canary/b/stderr"
[[ $(leaks "$cfg/canary/a") == *"(right password)"* && $(leaks "$cfg/canary/b") == *"(wrong password)"* ]] \
    || { echo "$prog: self-check: the grep misses a cut or re-cased copy of a password" >&2; exit 1; }

failures=0
cases=0
pass() { cases=$((cases + 1)); printf '  PASS %s\n' "$1"; }
fail() { cases=$((cases + 1)); failures=$((failures + 1)); printf '  FAIL %s: %s\n' "$1" "$2"; }

# run_case DRIVER WAY KIND: write the INI, run the runner, check, grep.
run_case() {
    local drv=$1 way=$2 kind=$3
    local name="$drv/$way/$kind" dir=$tmp/run/$drv-$way-$kind ini=$cfg/$drv-$way-$kind.ini
    local p=$pw pf=$cfg/pgpass-good home=$cfg/home-empty conninfo=$base setup="" rc=0
    local -a envs=(HOME="$cfg/home-empty" BENCH_TIME_MS=50 BENCH_QUERIES=10) args=()
    if [[ $kind == wrong || $kind == malformed ]]; then p=$wpw pf=$cfg/pgpass-wrong; fi
    [[ $kind == drvwrong ]] && setup="setup = $cfg/rotate.sql"
    [[ $kind == list ]] && args=(--list-drivers)
    case $way in
        ini)        conninfo="$base password=$p" ;;
        env)        conninfo=""; envs+=(PGCB_CONNINFO="$base password=$p") ;;
        uri)        conninfo="postgresql://$user:$p@/pgcb?host=$host&port=$port" ;;
        pgpassword) envs+=(PGPASSWORD="$p") ;;
        passfile)   conninfo="$base passfile=$pf" ;;
        pgpassfile) envs+=(PGPASSFILE="$pf") ;;
        home)       home=$cfg/home-good; [[ $kind == wrong ]] && home=$cfg/home-wrong
                    envs[0]=HOME=$home ;;
        # Mistakes that make libpq's parser quote what holds the password.
        badpct)     conninfo="postgresql://$user:${p}%zz@/pgcb?host=$host&port=$port" ;;
        badipv6)    conninfo="postgresql://$user:$p@[/pgcb" ;;
        unquoted)   conninfo="$base password=${p:0:12} ${p:12}" ;;
    esac
    mkdir -p "$dir"
    {
        printf '[bench]\ntime_ms = 50\nqueries = 10\nwarmup_ms = 0\noutput = %s/result.json\n' "$dir"
        printf '[server]\n'
        [[ -n $conninfo ]] && printf 'conninfo = %s\n' "$conninfo"
        [[ -n $setup ]] && printf '%s\n' "$setup"
        printf '[driver.%s]\npath = %s/drivers/%s.so\n' "$drv" "$build" "$drv"
        printf '[query.one]\nsql = SELECT 1::int AS one\nrows = 1\n'
        printf '[suite.s]\ndepth = 1\n'
    } >"$ini"

    (cd -- "$dir" && exec env -u PGPASSWORD -u PGPASSFILE -u PGCB_CONNINFO "${envs[@]}" \
        "$runner" -c "$ini" "${args[@]}" >"$dir/stdout" 2>"$dir/stderr") || rc=$?
    [[ $kind == drvwrong ]] && set_password "$pw"

    local why="" nerr hit
    nerr=$(wc -l <"$dir/stderr")
    case $kind in
        good)
            if ((rc != 0)); then why="exit status $rc, expected 0: $(head -c 300 "$dir/stderr")"
            elif [[ ! -s $dir/result.json ]]; then why="no result file"
            elif [[ ! -s $dir/stdout ]]; then why="nothing on stdout"
            fi ;;
        list)
            if ((rc != 0)); then why="exit status $rc, expected 0: $(head -c 300 "$dir/stderr")"
            elif ! grep -q "^$drv: " "$dir/stdout"; then why="stdout does not describe $drv"
            fi ;;
        wrong | drvwrong | malformed)
            if ((rc != 1)); then why="exit status $rc, expected 1"
            elif ((nerr != 1)); then why="$nerr lines on stderr, expected one"
            elif [[ -s $dir/stdout ]]; then why="output on stdout"
            elif [[ -e $dir/result.json ]]; then why="a result file was written"
            elif [[ $kind == drvwrong ]] && ! grep -q "driver $drv" "$dir/stderr"; then
                why="the error does not name the driver: $(head -c 300 "$dir/stderr")"
            elif [[ $kind != malformed ]] && ! grep -qi "password\|28P01" "$dir/stderr"; then
                why="the error does not say the password was refused: $(head -c 300 "$dir/stderr")"
            fi ;;
    esac
    # Every byte produced: the whole directory (stdout, stderr, the result
    # and any other file the runner left there). Both passwords, always.
    if hit=$(leaks "$dir"); [[ -n $hit ]]; then why="${why:+$why; }PASSWORD LEAK: $hit"; fi
    if [[ -z $why ]]; then
        pass "$name"
    else
        fail "$name" "$why"
        sed 's/^/    | /' "$dir/stderr" >&2
    fi
}

start=$SECONDS
for drv in "${drivers[@]}"; do
    for way in "${ways[@]}"; do
        for kind in good wrong drvwrong list; do
            run_case "$drv" "$way" "$kind"
        done
    done
    for way in badpct badipv6 unquoted; do
        run_case "$drv" "$way" malformed
    done
done

if ((failures)); then
    echo "$prog: $failures of $cases cases failed ($((SECONDS - start)) s)" >&2
    exit 1
fi
echo "$prog: all $cases cases passed: no password in any output ($((SECONDS - start)) s)"
