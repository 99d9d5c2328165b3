#!/bin/sh
# adapters/java/install.sh OUTDIR -- the Java adapter's jars from Maven
# Central, as adapters/java/pom.xml pins them (every version fixed): pgjdbc,
# HikariCP with slf4j's no-op binding, Gson, junixsocket (pgjdbc's
# Unix-domain socket factory, with its JNI library), vertx-pg-client with
# vert.x and Netty (and Netty's epoll transport). Maven (Debian's `maven`)
# resolves them into its own repository OUTDIR/m2 (-Dmaven.repo.local: never
# ~/.m2, never the system) and copies the jars into OUTDIR/lib, which
# adapters/java/build.sh compiles against and the adapter's manifest names.
# About 10 s here from nothing (some 20 MB of jars, plugins included); a
# no-op when OUTDIR/lib/.pom is a copy of the same pom.xml.
# Run by scripts/install-deps.sh (OUTDIR = build/adapters/java).
# On failure: one line naming Maven Central and the pom, exit 1.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: install.sh OUTDIR}
pom=$here/pom.xml
mkdir -p "$out"
out=$(cd "$out" && pwd)
lib=$out/lib
if [ -f "$lib/.pom" ] && cmp -s "$pom" "$lib/.pom"; then
    touch "$lib/.pom" # newer than the pom: make's stamp
    exit 0
fi
fail() {
    echo "install.sh: $* resolving adapters/java/pom.xml" >&2
    exit 1
}
command -v mvn >/dev/null 2>&1 || fail "no mvn (apt-get install maven) for Maven Central"
tmp=$out/lib.tmp.$$
log=$out/install.log
trap 'rm -rf "$tmp"' EXIT
rm -rf "$tmp"
if ! mvn -B -q -f "$pom" -Dmaven.repo.local="$out/m2" dependency:copy-dependencies \
    -DoutputDirectory="$tmp" -DexcludeTypes=pom </dev/null >"$log" 2>&1; then
    cat "$log" >&2
    why=$(sed -e 's/\x1b\[[0-9;]*m//g' "$log" | grep -m1 '^\[ERROR\] ' |
        sed -e 's/^\[ERROR\] *//' -e 's/ *-> \[Help.*//' | cut -c1-300)
    fail "Maven could not get the jars from Maven Central (${why:-see above})"
fi
rm -f "$log"
ls "$tmp"/postgresql-*.jar >/dev/null 2>&1 || fail "Maven copied no pgjdbc jar from Maven Central"
cp "$pom" "$tmp/.pom"
rm -rf "$lib.old"
if [ -d "$lib" ]; then mv "$lib" "$lib.old"; fi
mv "$tmp" "$lib"
rm -rf "$lib.old"
