#!/bin/sh
# Build the Java adapter and its standalone counterpart, offline, with
# Debian's JDK (javac and jar of default-jdk-headless, OpenJDK 17) against
# Debian's jars in /usr/share/java: nothing is downloaded (no Maven).
#
#   adapters/java/build.sh [OUTDIR]          (default build/adapters/java)
#   adapters/java/build.sh --lint [OUTDIR]   javac -Xlint:all -Werror into
#                                            OUTDIR/lint (no jar)
#
# -> OUTDIR/pgcb-adapter-java.jar (the bridge's `adapter = java`, run as
#    java @OUTDIR/jvm.options -jar OUTDIR/pgcb-adapter-java.jar),
#    OUTDIR/pgcb-standalone-java.jar (scripts/compare-standalone.sh pgjdbc)
#    OUTDIR/jvm.options (the JVM's flags, one file for both: a copy of
#    adapters/java/jvm.options) and OUTDIR/classes/ (the adapter's classes
#    alone, without the jar's Class-Path: tests run the adapter on a class
#    path that lacks a Debian jar, tests/server/test_bridge.c).
# Each jar's manifest names its Main-Class and, as Class-Path, the Debian
# jars it runs with (absolute paths under /usr/share/java); the adapter's
# also opens java.base/java.io to it (Add-Opens: the protocol's socket is
# fd 3, which only a FileDescriptor given the number can reach). A jar
# missing at run time is the adapter's to report, naming its package.
# Needs: apt-get install --no-install-recommends default-jdk-headless
# libpostgresql-jdbc-java libhikaricp-java libslf4j-java
# libgoogle-gson-java libjunixsocket-java libjunixsocket-jni
# Environment: JAVA_HOME (default: the JDK of /usr/bin/javac),
# PGCB_JAVA_SHARE (default /usr/share/java).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
lint=0
if [ "${1:-}" = --lint ]; then
    lint=1
    shift
fi
out=${1:-build/adapters/java}
share=${PGCB_JAVA_SHARE:-/usr/share/java}
pkgs="default-jdk-headless libpostgresql-jdbc-java libhikaricp-java libslf4j-java libgoogle-gson-java libjunixsocket-java libjunixsocket-jni"
if [ -n "${JAVA_HOME:-}" ]; then
    bin=$JAVA_HOME/bin
else
    bin=$(dirname "$(readlink -f /usr/bin/javac 2>/dev/null || echo /nonexistent/javac)")
fi
if [ ! -x "$bin/javac" ] || [ ! -x "$bin/jar" ]; then
    echo "build.sh: no javac and jar in $bin (apt-get install $pkgs)" >&2
    exit 1
fi
# What the adapter compiles against (pgjdbc, HikariCP, Gson) and runs with
# (those, junixsocket for Unix-domain sockets, slf4j for HikariCP with its
# no-op binding).
compile_jars="postgresql.jar HikariCP.jar gson.jar"
run_jars="postgresql.jar HikariCP.jar slf4j-api.jar slf4j-nop.jar gson.jar junixsocket-common.jar"
cp=""
for j in $compile_jars; do
    [ -f "$share/$j" ] || { echo "build.sh: $share/$j not found (apt-get install $pkgs)" >&2; exit 1; }
    cp=${cp:+$cp:}$share/$j
done
classpath() { # the manifest's Class-Path: absolute paths, space-separated
    for j in "$@"; do printf '%s ' "$share/$j"; done
}

mkdir -p "$out"
outabs=$(cd "$out" && pwd)
javac_flags="--release 17 -encoding UTF-8 -Xlint:all -Xlint:-options"
if [ "$lint" = 1 ]; then
    rm -rf "$outabs/lint"
    mkdir -p "$outabs/lint/adapter" "$outabs/lint/standalone"
    # shellcheck disable=SC2086
    "$bin/javac" $javac_flags -Werror -d "$outabs/lint/adapter" -cp "$cp" "$here"/src/pgcb/adapter/*.java
    # shellcheck disable=SC2086
    "$bin/javac" $javac_flags -Werror -d "$outabs/lint/standalone" -cp "$cp" "$here"/standalone/*.java
    exit 0
fi

tmp=$outabs/tmp.$$
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/adapter" "$tmp/standalone"
# shellcheck disable=SC2086
"$bin/javac" $javac_flags -d "$tmp/adapter" -cp "$cp" "$here"/src/pgcb/adapter/*.java
# shellcheck disable=SC2086
"$bin/javac" $javac_flags -d "$tmp/standalone" -cp "$cp" "$here"/standalone/*.java
{
    printf 'Main-Class: pgcb.adapter.Main\n'
    # shellcheck disable=SC2086
    printf 'Class-Path: %s\n' "$(classpath $run_jars)"
    printf 'Add-Opens: java.base/java.io\n'
} >"$tmp/adapter.mf"
{
    printf 'Main-Class: pgcb.standalone.Standalone\n'
    printf 'Class-Path: %s\n' "$(classpath postgresql.jar junixsocket-common.jar)"
} >"$tmp/standalone.mf"
"$bin/jar" --create --file "$tmp/pgcb-adapter-java.jar" --manifest "$tmp/adapter.mf" -C "$tmp/adapter" .
"$bin/jar" --create --file "$tmp/pgcb-standalone-java.jar" --manifest "$tmp/standalone.mf" -C "$tmp/standalone" .
cp "$here/jvm.options" "$tmp/jvm.options"
# A private name, then a rename: a concurrent build (make's two build
# directories) never sees a half-written file.
for f in pgcb-adapter-java.jar pgcb-standalone-java.jar jvm.options; do
    mv -f "$tmp/$f" "$outabs/$f"
done
rm -rf "$outabs/classes.old"
if [ -d "$outabs/classes" ]; then mv "$outabs/classes" "$outabs/classes.old"; fi
mv "$tmp/adapter" "$outabs/classes"
rm -rf "$outabs/classes.old"
