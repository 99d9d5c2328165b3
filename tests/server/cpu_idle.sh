#!/usr/bin/env bash
# [bench] cpu_idle against the real server, with the PG* variables of
# tests/run.sh's server:
#           tests/server/cpu_idle.sh BUILD_DIR
# - auto (the default), as root: the runner holds /dev/cpu_dma_latency open
#   while it measures (seen in /proc/PID/fd), the result says polling, and
#   where the machine shows cpuidle states the pinned CPUs went idle only by
#   polling; the header says "Idle     : poll"; once it exits, none of its
#   processes holds the file;
# - system: the file never held by the runner's processes, the result and
#   header say so;
# - poll for a user who may not write the file: refused in one line naming
#   the file, line and key, exit 1, no result;
# - the runner SIGKILLed while holding it: none of its processes left
#   holding it.
# Only the runner's own processes are looked at: make test's other chain
# may run a runner of its own at the same time.
# Exit status 1 at the first failed check. Not root (only root may make the
# request): a SKIP line and exit 0, or a FAIL under CI (CI set), which runs
# as root.
set -uo pipefail
(($# == 1)) || { printf 'usage: %s BUILD_DIR\n' "$0" >&2; exit 2; }
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd "$1" && pwd)
dev=/dev/cpu_dma_latency
if [ "$(id -u)" != 0 ] || [ ! -w "$dev" ]; then
    why="needs root and a writable $dev (only root may request a CPU latency)"
    [ -n "${CI:-}" ] && { echo "FAIL under CI: $why"; exit 1; }
    echo "SKIP cpu_idle.sh: $why"
    exit 0
fi
tmp=$(mktemp -d /tmp/pgcb-cpuidle-XXXXXX)
chmod 755 "$tmp"
pid=
trap '[ -n "$pid" ] && kill -9 "$pid" 2> /dev/null; rm -rf "$tmp"' EXIT
n=0
fail() { printf 'FAIL %s\n' "$*"; exit 1; }
pass() { n=$((n + 1)); printf 'ok %d %s\n' "$n" "$*"; }

# tree PID: PID and its descendants.
tree() {
    local p
    echo "$1"
    for p in $(pgrep -P "$1"); do tree "$p"; done
}
# holding: those of the PIDs on stdin (one a line) that have the file open.
holding() {
    local p f
    while read -r p; do
        [ -n "$p" ] || continue
        for f in /proc/"$p"/fd/*; do
            if [ "$(readlink "$f" 2> /dev/null)" = "$dev" ]; then echo "$p"; break; fi
        done
    done
}

ini() { # ini NAME MODE TIME_MS: a run of libpq_sync, one group
    cat > "$tmp/$1.ini" <<EOF
[bench]
time_ms = $3
queries = 5
warmup_ms = 10
orders = 2
${2:+cpu_idle = $2}
[server]
setup = $root/sql/benchmark_rows.sql
[driver.libpq_sync]
path = $build/drivers/libpq_sync.so
[query.limit_1]
sql = SELECT * FROM benchmark_rows ORDER BY id LIMIT 1
rows = 1
[suite.sequential]
depth = 1
EOF
}

# start NAME: run NAME.ini in the background (pid).
start() {
    "$build/runner" -c "$tmp/$1.ini" -o "$tmp/$1.json" > "$tmp/$1.out" 2> "$tmp/$1.err" &
    pid=$!
}
# watch: until the runner exits, look every 50 ms at its processes: held
# (those seen holding the file, ever) and procs (every one seen).
watch() {
    held="" procs=""
    while kill -0 "$pid" 2> /dev/null; do
        local t
        t=$(tree "$pid")
        procs=$(printf '%s\n%s\n' "$procs" "$t" | sort -u | sed '/^$/d')
        held=$(printf '%s\n%s\n' "$held" "$(holding <<< "$t")" | sort -u | sed '/^$/d')
        [ -n "$held" ] && [ "${1:-}" = first ] && return 0
        sleep 0.05
    done
}
# finish NAME: the run's exit checked.
finish() {
    wait "$pid" || { cat "$tmp/$1.err"; fail "$1: runner exit $?"; }
    pid=
}

# auto: held while measuring (looked at once the first order has started).
ini auto "" 1500
start auto
watch
finish auto
[ -n "$held" ] || fail "cpu_idle = auto: none of the runner's processes held $dev"
grep -q "^Idle     : poll (\[bench\] cpu_idle = auto" "$tmp/auto.out" ||
    { grep "^Idle" "$tmp/auto.out"; fail "the header of an auto run does not say Idle: poll"; }
left=$(holding <<< "$procs")
[ -z "$left" ] || fail "after the runner exited, its processes $left still hold $dev"
pass "cpu_idle = auto: $dev held by the runner's processes (${held//$'\n'/ }), none left holding it at exit; header 'Idle: poll'"

/usr/bin/python3 - "$tmp/auto.json" <<'EOF' || fail "cpu_idle = auto: the result's environment.noise.cpu_idle"
import json, sys
i = json.load(open(sys.argv[1]))["environment"]["noise"]["cpu_idle"]
assert i["asked"] == "auto" and i["polling"] is True and i["why"] is None, i
if i["entries_poll"] is not None:
    # every idle entry of the pinned CPUs while measuring was into polling
    assert i["entries_poll"] > 0 and i["entries_other"] == 0, i
    print("# idle entries while measuring: %d polling, %d halting" % (i["entries_poll"], i["entries_other"]))
EOF
pass "cpu_idle = auto: the result says polling, and the pinned CPUs never halted while measuring"

# system: never held.
ini system system 1500
start system
watch
finish system
[ -n "$procs" ] || fail "cpu_idle = system: no process of the runner seen"
[ -z "$held" ] || fail "cpu_idle = system: $dev held by the runner's processes $held"
grep -q "^Idle     : as the system has it (\[bench\] cpu_idle = system" "$tmp/system.out" ||
    { grep "^Idle" "$tmp/system.out"; fail "the header of a system run does not say so"; }
/usr/bin/python3 - "$tmp/system.json" <<'EOF' || fail "cpu_idle = system: the result's environment.noise.cpu_idle"
import json, sys
i = json.load(open(sys.argv[1]))["environment"]["noise"]["cpu_idle"]
assert i["asked"] == "system" and i["polling"] is False and i["why"] == "[bench] cpu_idle = system", i
EOF
pass "cpu_idle = system: $dev never held; the result and header say so"

# poll, for a user who may not write it: one line, no result.
ini poll poll 1500
chmod 644 "$tmp/poll.ini"
line=$(grep -n '^cpu_idle' "$tmp/poll.ini" | cut -d: -f1)
setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
    "$build/runner" -c "$tmp/poll.ini" -o "$tmp/poll.json" > "$tmp/poll.out" 2> "$tmp/poll.err"
rc=$?
[ "$rc" = 1 ] || { cat "$tmp/poll.err"; fail "cpu_idle = poll as nobody: exit $rc, expected 1"; }
want="runner: $tmp/poll.ini:$line: [bench] cpu_idle = poll: $dev: Permission denied (root may write it)"
[ "$(cat "$tmp/poll.err")" = "$want" ] ||
    { printf 'got:  %s\nwant: %s\n' "$(cat "$tmp/poll.err")" "$want"; fail "cpu_idle = poll as nobody: not the one line"; }
[ -e "$tmp/poll.json" ] && fail "cpu_idle = poll as nobody: a result was written"
pass "cpu_idle = poll where $dev may not be written: refused in one line naming file:$line (exit 1), no result"

# SIGKILL while holding: the kernel drops the request with the last
# descriptor (the hosts die with the runner: PR_SET_PDEATHSIG).
ini killed "" 20000
start killed
watch first
[ -n "$held" ] || fail "the run to be killed did not hold $dev"
procs=$(tree "$pid")
kill -9 "$pid"
wait "$pid" 2> /dev/null
pid=
for ((i = 0; i < 100; i++)); do
    [ -z "$(holding <<< "$procs")" ] && break
    sleep 0.05
done
left=$(holding <<< "$procs")
[ -z "$left" ] || fail "after SIGKILL of the runner, its processes $left still hold $dev"
pass "the runner SIGKILLed while measuring: none of its processes left holding $dev"
