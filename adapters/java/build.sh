#!/bin/sh
# Build the Java adapter and its standalone counterpart with javac and jar
# (seconds, offline) against the jars adapters/java/install.sh resolved from
# Maven Central into OUTDIR/lib (adapters/java/pom.xml pins them), with the
# newest JDK of the machine.
#
#   adapters/java/build.sh [OUTDIR]          (default build/adapters/java)
#   adapters/java/build.sh --lint [OUTDIR]   javac -Xlint:all -Werror into
#                                            OUTDIR/lint (no jar)
#
# The JDK: JAVA_HOME when set, else the newest /usr/lib/jvm/*/ with a javac,
# by its feature version (Temurin 25 beside Debian's OpenJDK 17 here).
# OUTDIR/jdk is a symlink to that JDK's home: the bridge's `adapter = java`
# runs java/jdk/bin/java (a runtime under the adapters directory), which a
# driver can replace with `runtime = /usr/bin/java` (OpenJDK 17: the
# classes are compiled with --release 17).
#
# -> OUTDIR/pgcb-adapter-java.jar (the bridge's `adapter = java`, run as
#    OUTDIR/jdk/bin/java @OUTDIR/jvm.options -jar OUTDIR/pgcb-adapter-java.jar),
#    OUTDIR/pgcb-standalone-java.jar (scripts/compare-standalone.sh pgjdbc|vertx),
#    OUTDIR/jvm.options (the JVM's flags, one file for both: a copy of
#    adapters/java/jvm.options) and OUTDIR/classes/ (the adapter's classes
#    alone, without the jar's Class-Path: tests run the adapter on a class
#    path that lacks a jar, tests/server/test_bridge.c).
# Each jar's manifest names its Main-Class and, as Class-Path, the jars of
# OUTDIR/lib (relative to the jar: lib/NAME.jar); the adapter's also opens
# java.base/java.io to it (Add-Opens: the protocol's socket is fd 3, which
# only a FileDescriptor given the number can reach). A jar missing at run
# time is the adapter's to report, naming adapters/java/install.sh.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
lint=0
if [ "${1:-}" = --lint ]; then
    lint=1
    shift
fi
out=${1:-build/adapters/java}
mkdir -p "$out"
outabs=$(cd "$out" && pwd)
lib=$outabs/lib

# The JDK: JAVA_HOME, else the newest of /usr/lib/jvm by `javac -version`'s
# feature number (the first field of "javac 25.0.1", "javac 17.0.15").
if [ -n "${JAVA_HOME:-}" ]; then
    jdk=$JAVA_HOME
else
    jdk='' best=0
    for j in /usr/lib/jvm/*/bin/javac; do
        [ -x "$j" ] || continue
        home=$(readlink -f "$(dirname "$j")/..")
        v=$("$j" -version 2>&1 | sed -n 's/^javac \([0-9]*\).*/\1/p' | head -n 1)
        [ -n "$v" ] || continue
        if [ "$v" -gt "$best" ]; then best=$v jdk=$home; fi
    done
fi
bin=${jdk:+$jdk/bin}
if [ -z "$bin" ] || [ ! -x "$bin/javac" ] || [ ! -x "$bin/jar" ]; then
    echo "build.sh: no JDK with javac and jar (${jdk:-/usr/lib/jvm/*}: apt-get install default-jdk-headless, or set JAVA_HOME)" >&2
    exit 1
fi
if ! ls "$lib"/postgresql-*.jar >/dev/null 2>&1; then
    echo "build.sh: no jars in $lib (run adapters/java/install.sh $out, or scripts/install-deps.sh)" >&2
    exit 1
fi
# Compiled against every jar of lib (pgjdbc, HikariCP, Gson, vert.x ...),
# run with them all.
cp=""
mf_cp=""
for j in "$lib"/*.jar; do
    cp=${cp:+$cp:}$j
    mf_cp="${mf_cp:+$mf_cp
 } lib/$(basename "$j")"
done

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
# A manifest's lines are at most 72 bytes: one jar a line, each a
# continuation (a leading space, then the separating one).
{
    printf 'Main-Class: pgcb.adapter.Main\n'
    printf 'Class-Path:%s\n' "$mf_cp"
    printf 'Add-Opens: java.base/java.io\n'
} >"$tmp/adapter.mf"
{
    printf 'Main-Class: pgcb.standalone.Standalone\n'
    printf 'Class-Path:%s\n' "$mf_cp"
} >"$tmp/standalone.mf"
"$bin/jar" --create --file "$tmp/pgcb-adapter-java.jar" --manifest "$tmp/adapter.mf" -C "$tmp/adapter" .
"$bin/jar" --create --file "$tmp/pgcb-standalone-java.jar" --manifest "$tmp/standalone.mf" -C "$tmp/standalone" .
cp "$here/jvm.options" "$tmp/jvm.options"
ln -s "$jdk" "$tmp/jdk"
# A private name, then a rename: a concurrent build (make's two build
# directories) never sees a half-written file.
for f in pgcb-adapter-java.jar pgcb-standalone-java.jar jvm.options jdk; do
    mv -Tf "$tmp/$f" "$outabs/$f"
done
rm -rf "$outabs/classes.old"
if [ -d "$outabs/classes" ]; then mv "$outabs/classes" "$outabs/classes.old"; fi
mv "$tmp/adapter" "$outabs/classes"
rm -rf "$outabs/classes.old"
