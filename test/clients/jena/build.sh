#!/usr/bin/env bash
# Builds the Jena client (target/classes + its dependencies in target/lib) with Maven's defaults and
# the ~/.m2 cache. Skipped when the jar is newer than the pom and every source file.
set -euo pipefail
cd "$(dirname "$0")"
jar=target/jena-client-0.1.0.jar
if [ -f "$jar" ] && [ -d target/lib ] && [ -z "$(find pom.xml src -type f -newer "$jar")" ]; then
  exit 0
fi
mvn -q -B package >&2
