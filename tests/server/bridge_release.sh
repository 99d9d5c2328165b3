#!/usr/bin/env bash
# pgcb-test: plain build only: the bridge's release plumbing is the same C in every build, and it starts shell scripts and a Python fake
# `client = NAME@RELEASE` and `[driver.NAME@RELEASE]` through the runner, on
# the bridge's contract with an adapter's release.sh (drivers/bridge/
# br_release.c), with a scripted release.sh in an adapters directory of the
# test's own (`adapters = DIR`), so that no registry is asked:
#   - a release the registry does not have (the script's exit 2): exit 1
#     before anything is measured, one line on stderr naming the file:line,
#     the driver, the client at its release and the script's last line (the
#     registry's answer), no result;
#   - a release that does not build (the script's exit 1): one line on
#     stderr, its cells failed with the script's last line, the other
#     driver measured and valid, the result written, exit 2;
#   - a release installed as an adapter of its own (DEST/adapter, which runs
#     the fake adapter of tests/fixtures/adapters/): the run is valid, the
#     result names the driver fake@1.2.3, the script ran once although the
#     bridge opened several connections, and a second run does not run it
#     again (its stamp);
#   - a release that is not a registry's spelling: refused by the bridge
#     before any script runs;
#   - scripts/ab.sh with two releases as its sides (fake@1.2.3 and @1.2.4):
#     one run, compared; the same release twice refused (an A/A unasked).
#           tests/server/bridge_release.sh BUILD_DIR
# Exit status 1 at the first failed check.
set -uo pipefail

build=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { printf 'bridge_release: FAIL: %s\n' "$*"; exit 1; }

mkdir -p "$tmp/adapters/go"
# The scripted release.sh: counts its runs; 99.x is "not in the registry"
# (exit 2); 98.x is in it but does not build (exit 1); anything else becomes
# DEST/adapter, a wrapper around the fake adapter.
cat >"$tmp/adapters/go/release.sh" <<SH
#!/bin/sh
echo run >>"$tmp/runs"
case \$2 in
99.*) echo "installing \$1@\$2 ..."; echo "proxy: \$1@\$2: unknown revision v\$2"; exit 2 ;;
98.*) echo "building \$1@\$2 ..."; echo "go build of \$1@\$2 failed: undefined: pgconn.Foo"; exit 1 ;;
esac
mkdir -p "\$3"
printf '#!/bin/sh\nexec python3 %s "\$@"\n' "$root/tests/fixtures/adapters/fake_adapter.py" >"\$3/adapter"
chmod +x "\$3/adapter"
touch "\$3/.pgcb-release"
SH
chmod +x "$tmp/adapters/go/release.sh"

ini() { # NAME CLIENT
    cat <<INI
[bench]
time_ms   = 200
queries   = 20
warmup_ms = 0
output    = $tmp/out.json

[server]
conninfo =

[driver.$1]
path     = $build/drivers/bridge.so
adapter  = go
adapters = $tmp/adapters
client   = $2

[driver.floor]
path = $build/drivers/null.so

[query.limit_1]
sql  = SELECT * FROM benchmark_rows ORDER BY id LIMIT 1
rows = 1
check = rows

[suite.sequential]
depth   = 1
queries = limit_1
INI
}

# A release the registry does not have.
ini fake fake@99.0.0 >"$tmp/bad.ini"
"$build/runner" -c "$tmp/bad.ini" >"$tmp/bad.out" 2>"$tmp/bad.err"
rc=$?
[ "$rc" = 1 ] || fail "unknown release: exit $rc, expected 1"
[ "$(wc -l <"$tmp/bad.err")" = 1 ] || { cat "$tmp/bad.err"; fail "unknown release: not one line on stderr"; }
want="$tmp/bad.ini:10: [driver.fake]: client = fake@99.0.0: proxy: fake@99.0.0: unknown revision v99.0.0"
grep -qxF "runner: $want" "$tmp/bad.err" || { cat "$tmp/bad.err"; fail "unknown release: expected 'runner: $want'"; }
[ ! -e "$tmp/out.json" ] || fail "unknown release: a result was written"
[ ! -s "$tmp/bad.out" ] || { cat "$tmp/bad.out"; fail "unknown release: something printed on stdout"; }
echo "bridge_release: ok: an unknown release refused in one line, nothing run"

# A release that does not build: only its cells fail.
ini fake@98.0.0 fake@98.0.0 >"$tmp/build.ini"
"$build/runner" -c "$tmp/build.ini" >"$tmp/build.out" 2>"$tmp/build.err"
rc=$?
[ "$rc" = 2 ] || { cat "$tmp/build.err"; fail "release that does not build: exit $rc, expected 2"; }
why="client = fake@98.0.0: go build of fake@98.0.0 failed: undefined: pgconn.Foo"
want="runner: $tmp/build.ini:10: [driver.fake@98.0.0]: $why: its cells fail; the other drivers are measured"
grep -qxF "$want" "$tmp/build.err" || { cat "$tmp/build.err"; fail "release that does not build: expected '$want'"; }
[ -s "$tmp/out.json" ] || fail "release that does not build: no result written"
jq -e --arg why "$why" '[.groups[].results[] | select(.driver == "fake@98.0.0") | .status == "failed" and (.error | contains($why))] | (length == 1 and all)' "$tmp/out.json" >/dev/null ||
    { jq '.groups[].results[] | {driver, status, error}' "$tmp/out.json"; fail "fake@98.0.0's cell is not failed with the script's reason"; }
jq -e '[.groups[].results[] | select(.driver == "floor") | .status == "ok"] | (length == 1 and all)' "$tmp/out.json" >/dev/null ||
    { jq '.groups[].results[] | {driver, status, error}' "$tmp/out.json"; fail "the other driver was not measured"; }
grep -q 'fake@98.0.0' "$tmp/build.out" || fail "release that does not build: the tables do not name it"
rm -f "$tmp/out.json"
echo "bridge_release: ok: a release that does not build fails only its cells (exit 2), the rest measured"

# A release installed once, run under its own name.
rm -f "$tmp/runs"
ini fake@1.2.3 fake@1.2.3 >"$tmp/good.ini"
"$build/runner" -c "$tmp/good.ini" >"$tmp/good.out" 2>&1 || { cat "$tmp/good.out"; fail "release run failed"; }
[ -x "$tmp/releases/go/fake@1.2.3/adapter" ] || fail "no build/releases/go/fake@1.2.3/adapter"
[ "$(wc -l <"$tmp/runs")" = 1 ] || fail "release.sh ran $(wc -l <"$tmp/runs") times, expected once"
jq -e '[.groups[].results[] | select(.driver == "fake@1.2.3")] | length == 1' "$tmp/out.json" >/dev/null ||
    fail "the result has no driver fake@1.2.3"
jq -e '[.groups[].results[] | select(.driver == "fake@1.2.3") | .status == "ok"] | all' "$tmp/out.json" >/dev/null ||
    { cat "$tmp/good.out"; fail "fake@1.2.3 is not valid"; }
"$build/runner" -c "$tmp/good.ini" >"$tmp/good2.out" 2>&1 || { cat "$tmp/good2.out"; fail "second release run failed"; }
[ "$(wc -l <"$tmp/runs")" = 1 ] || fail "the second run ran release.sh again"
echo "bridge_release: ok: fake@1.2.3 installed once, valid, named by its release"

# Not a registry's spelling: refused before any script runs.
ini fake 'fake@1.0;rm' >"$tmp/spell.ini"
"$build/runner" -c "$tmp/spell.ini" >/dev/null 2>"$tmp/spell.err"
rc=$?
[ "$rc" = 1 ] || fail "bad spelling: exit $rc, expected 1"
grep -qF "client = 'fake@1.0;rm': '1.0;rm' is not a release" "$tmp/spell.err" ||
    { cat "$tmp/spell.err"; fail "bad spelling: no message naming the release"; }
[ "$(wc -l <"$tmp/runs")" = 1 ] || fail "bad spelling: release.sh ran"
echo "bridge_release: ok: a release spelled as no registry does refused before any script"

# scripts/ab.sh with releases as its sides: two releases of the fake,
# interleaved in one run, compared; the same release twice refused as an A/A.
cat >"$tmp/ab.ini" <<INI
[bench]
time_ms   = 200
queries   = 20
warmup_ms = 0
orders    = 2

[server]
conninfo =

[query.limit_1]
sql  = SELECT * FROM benchmark_rows ORDER BY id LIMIT 1
rows = 1
check = rows

[suite.sequential]
depth   = 1
queries = limit_1
INI
"$root/scripts/ab.sh" --build-dir "$build" --config "$tmp/ab.ini" --out "$tmp/ab" --adapter go \
    --option "adapters = $tmp/adapters" --client fake fake@1.2.3 @1.2.4 >"$tmp/ab.out" 2>&1 ||
    { cat "$tmp/ab.out"; fail "ab.sh with two releases failed"; }
if ! grep -qx 'client = fake@1.2.3' "$tmp/ab/ab.ini" || ! grep -qx 'client = fake@1.2.4' "$tmp/ab/ab.ini"; then
    cat "$tmp/ab/ab.ini"
    fail "ab.sh: the sides are not the two releases"
fi
grep -q 'module_dir' "$tmp/ab/ab.ini" && fail "ab.sh: a release side has a module_dir"
[ -s "$tmp/ab/comparison.json" ] || fail "ab.sh: no comparison"
"$root/scripts/ab.sh" --build-dir "$build" --config "$tmp/ab.ini" --out "$tmp/ab2" --adapter go \
    --client fake fake@1.2.3 fake@1.2.3 >"$tmp/ab2.out" 2>&1
rc=$?
if [ "$rc" != 1 ] || ! grep -q 'same build' "$tmp/ab2.out"; then
    cat "$tmp/ab2.out"
    fail "ab.sh: the same release twice not refused (exit $rc)"
fi
echo "bridge_release: ok: ab.sh compares two releases in one run, refuses one release twice"
