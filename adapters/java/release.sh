#!/bin/sh
# adapters/java/release.sh CLIENT RELEASE DEST -- one release of pgjdbc from
# Maven Central, for `client = pgjdbc@42.5.5` (drivers/bridge/br_release.c
# states the contract; adapters/release-lib.sh the shared steps). Run from
# build/adapters/java/ (the Makefile copies it there).
#
# Maven resolves org.postgresql:postgresql:RELEASE into the adapter's Maven
# repository (build/adapters/java/m2, -Dmaven.repo.local: never ~/.m2) and
# copies that one jar into DEST/lib; DEST/adapter is a small sh script that
# runs the adapter's classes (build/adapters/java/classes) with the same JVM
# and flags as the shipped adapter (jdk/bin/java @jvm.options) and a class
# path of that pgjdbc jar instead of the current one, then the adapter's
# other jars (build/adapters/java/lib). A release with a committed pom
# (adapters/java/releases/pgjdbc@RELEASE/pom.xml: those of
# conf/releases.ini) is resolved from it; any other from a pom written here
# (kept in DEST). An unknown release: one line with Maven's answer.
set -eu
# shellcheck source=adapters/release-lib.sh
. "$(dirname "$0")/../release-lib.sh"
rl_begin "$@"

case $RL_CLIENT in
pgjdbc) ;;
*) rl_unknown "Maven Central: $RL_CLIENT has no releases here (the java adapter's: pgjdbc)" ;;
esac
command -v mvn >/dev/null 2>&1 || rl_fail "mvn not found (apt-get install maven): it resolves pgjdbc@$RL_RELEASE"
if [ ! -d "$RL_HERE/classes" ] || [ ! -f "$RL_HERE/jvm.options" ] || [ ! -e "$RL_HERE/jdk/bin/java" ]; then
    rl_fail "java adapter: $RL_HERE is not built (make build/adapters/java/pgcb-adapter-java.jar)"
fi

if [ -n "$RL_PINNED" ]; then
    cp "$RL_PINNED/pom.xml" "$RL_TMP/pom.xml"
else
    cat >"$RL_TMP/pom.xml" <<POM
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>pgcb</groupId>
  <artifactId>pgcb-release-pgjdbc</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.postgresql</groupId>
      <artifactId>postgresql</artifactId>
      <version>$RL_RELEASE</version>
    </dependency>
  </dependencies>
  <build><pluginManagement><plugins><plugin>
    <groupId>org.apache.maven.plugins</groupId>
    <artifactId>maven-dependency-plugin</artifactId>
    <version>3.9.0</version>
  </plugin></plugins></pluginManagement></build>
</project>
POM
fi
log=$RL_TMP/.mvn.log
if ! mvn -B -q -f "$RL_TMP/pom.xml" -Dmaven.repo.local="$RL_HERE/m2" dependency:copy-dependencies \
    -DoutputDirectory="$RL_TMP/lib" -DexcludeTransitive=true -DincludeArtifactIds=postgresql \
    </dev/null >"$log" 2>&1; then
    cat "$log" >&2
    # Maven's reason: the first [ERROR] line, without the plugin's preamble
    # ("... Could not resolve dependencies for project pgcb:...: Could not
    # find artifact org.postgresql:postgresql:jar:99.0 in central (...)").
    why=$(sed -e 's/\x1b\[[0-9;]*m//g' "$log" | grep -m1 '^\[ERROR\] ' |
        sed -e 's/^\[ERROR\] *//' -e 's/^Failed to execute goal.* on project [^:]*: *//' \
            -e 's/^Could not resolve dependencies for project [^:]*:[^:]*:[^:]*:[^:]*: *//' \
            -e 's/ during a previous attempt.*//' -e 's/ *-> \[Help.*//')
    # Central has no such version: the config is wrong.
    if grep -q "Could not find artifact org.postgresql:postgresql:jar:$RL_RELEASE" "$log"; then
        rl_unknown "Maven Central (pgjdbc@$RL_RELEASE): ${why:-no such release}"
    fi
    rl_fail "Maven Central (pgjdbc@$RL_RELEASE): ${why:-mvn failed (see the messages above)}"
fi
rm -f "$log"
jar=
for j in "$RL_TMP"/lib/postgresql-*.jar; do [ -f "$j" ] && jar=$j; done
[ -n "$jar" ] || rl_fail "Maven Central: pgjdbc@$RL_RELEASE gave no org.postgresql:postgresql jar"
jar=$RL_DEST/lib/$(basename "$jar")
cat >"$RL_TMP/adapter" <<ADAPTER
#!/bin/sh
# The java adapter with pgjdbc $RL_RELEASE (adapters/java/release.sh): its
# classes and JVM, that pgjdbc jar first, then the adapter's other jars.
here='$RL_HERE'
cp=\$here/classes:'$jar'
for j in "\$here"/lib/*.jar; do
    case \${j##*/} in postgresql-*) ;; *) cp=\$cp:\$j ;; esac
done
exec "\$here/jdk/bin/java" @"\$here/jvm.options" --add-opens=java.base/java.io=ALL-UNNAMED \\
    -cp "\$cp" pgcb.adapter.Main "\$@"
ADAPTER
chmod +x "$RL_TMP/adapter"
rl_commit
