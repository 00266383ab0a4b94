#!/usr/bin/env bash
# Installs Apache Kafka's broker (KRaft mode) for the tests: org.apache.kafka:kafka_2.13 and its runtime
# dependencies, plus the log4j2 backend its server logs through, resolved by Maven (its default
# repositories, the ~/.m2 cache) into ${IANODE_KAFKA_HOME:-$HOME/.cache/ianode/kafka-VERSION}/libs.
# A marker file is written last, so a second run (or a run after an interrupted one) is instant or
# redoes the copy. Needs java (17+) and mvn; reads no stdin; prints one summary line.
set -euo pipefail

KAFKA_VERSION="${IANODE_KAFKA_VERSION:-4.1.1}"
LOG4J_VERSION="2.24.3"
SLF4J_VERSION="2.0.17" # Kafka's poms ask for slf4j-api 1.7 at runtime; log4j-slf4j2-impl binds only to 2.x
home="${IANODE_KAFKA_HOME:-$HOME/.cache/ianode/kafka-$KAFKA_VERSION}"
marker="$home/.installed-$KAFKA_VERSION"

if [ -f "$marker" ] && [ -d "$home/libs" ]; then
  echo "kafka $KAFKA_VERSION: already installed in $home ($(ls "$home/libs" | wc -l) jars)"
  exit 0
fi

command -v java >/dev/null 2>&1 || { echo "kafka install: java not found (Kafka $KAFKA_VERSION needs Java 17+)" >&2; exit 1; }
command -v mvn >/dev/null 2>&1 || { echo "kafka install: mvn not found" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cat >"$work/pom.xml" <<POM
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>ianode.test</groupId>
  <artifactId>kafka-broker-libs</artifactId>
  <version>0</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka_2.13</artifactId>
      <version>$KAFKA_VERSION</version>
    </dependency>
    <dependency>
      <groupId>org.slf4j</groupId>
      <artifactId>slf4j-api</artifactId>
      <version>$SLF4J_VERSION</version>
    </dependency>
    <dependency>
      <groupId>org.apache.logging.log4j</groupId>
      <artifactId>log4j-slf4j2-impl</artifactId>
      <version>$LOG4J_VERSION</version>
    </dependency>
    <dependency>
      <groupId>org.apache.logging.log4j</groupId>
      <artifactId>log4j-core</artifactId>
      <version>$LOG4J_VERSION</version>
    </dependency>
  </dependencies>
</project>
POM

rm -rf "$home/libs.partial"
mkdir -p "$home"
(cd "$work" && mvn -q -B dependency:copy-dependencies -DincludeScope=runtime \
  -DoutputDirectory="$home/libs.partial" </dev/null >"$work/mvn.log" 2>&1) || {
  tail -n 30 "$work/mvn.log" >&2
  echo "kafka install: mvn dependency:copy-dependencies failed" >&2
  exit 1
}
rm -rf "$home/libs"
mv "$home/libs.partial" "$home/libs"
touch "$marker"
echo "kafka $KAFKA_VERSION: installed $(ls "$home/libs" | wc -l) jars in $home/libs"
