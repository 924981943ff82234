#!/usr/bin/env bash
# Copies the runtime classpath of test/kafka-broker/pom.xml (Apache Kafka's broker
# and its logging binding, from Maven Central) into <repo>/.kafka/libs.
#
# Idempotent: a stamp file inside the libs folder records the pinned Kafka version
# and a hash of pom.xml; when it matches and the broker jar is present, nothing is
# downloaded. The folder is filled in a sibling temporary folder and renamed into
# place, so an interrupted run never leaves a half-filled classpath behind, and a
# lock serialises concurrent runs (two test files started standalone at once).
#
# Usage: test/kafka-broker/fetch-jars.sh [--force] [--quiet]
#   --force  fetch even when the stamp matches
#   --quiet  print nothing when the jars are already current
# Environment: KAFKA_TEST_HOME overrides <repo>/.kafka (the libs go to $KAFKA_TEST_HOME/libs).
# CI: cache ~/.m2/repository to skip the download; Maven Central is the only source.
set -euo pipefail

script_directory=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repository_root=$(cd "$script_directory/../.." && pwd)
pom="$script_directory/pom.xml"
kafka_home="${KAFKA_TEST_HOME:-$repository_root/.kafka}"
libs="$kafka_home/libs"
stamp="$libs/.fetched"
force=false
quiet=false
for argument in "$@"; do
  case "$argument" in
    --force) force=true ;;
    --quiet) quiet=true ;;
    *) echo "fetch-jars: unknown argument '$argument' (expected --force or --quiet)" >&2; exit 2 ;;
  esac
done

for tool in java mvn sha256sum; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "fetch-jars: '$tool' is not on PATH; the test broker needs Java 17+ and Maven 3.8+" >&2
    exit 1
  fi
done

kafka_version=$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$pom")
if [[ -z "$kafka_version" ]]; then
  echo "fetch-jars: no <kafka.version> in $pom" >&2
  exit 1
fi
expected_stamp="kafka.version=$kafka_version pom.sha256=$(sha256sum "$pom" | cut -d' ' -f1)"

exit_if_current() {
  if [[ "$force" == false && -f "$stamp" && "$(cat "$stamp")" == "$expected_stamp" && -f "$libs/kafka_2.13-$kafka_version.jar" ]]; then
    [[ "$quiet" == true ]] || echo "fetch-jars: Kafka $kafka_version jars already in $libs"
    exit 0
  fi
}

exit_if_current

mkdir -p "$kafka_home"
exec 9>"$kafka_home/.fetch.lock"
flock 9
# Another run may have finished while this one waited for the lock.
exit_if_current

staging=$(mktemp -d "$kafka_home/libs.staging.XXXXXX")
chmod 755 "$staging"
trap 'rm -rf "$staging"' EXIT
started=$(date +%s)
# --strict-checksums: fail (not warn) when a download does not match Central's checksum.
# includeScope=runtime: Kafka's Gradle "implementation" modules are published as runtime scope.
# Maven 3.8 prints colour resets on stdout and stderr even in batch mode; strip them
# (pipefail keeps mvn's exit status).
mvn -B -q --strict-checksums -f "$pom" \
  dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$staging" 2>&1 \
  | sed 's/\x1b\[[0-9;]*m//g'
if [[ ! -f "$staging/kafka_2.13-$kafka_version.jar" ]]; then
  echo "fetch-jars: Maven finished but kafka_2.13-$kafka_version.jar is missing from the classpath" >&2
  exit 1
fi
echo "$expected_stamp" >"$staging/.fetched"
rm -rf "$libs"
mv "$staging" "$libs"
trap - EXIT
jar_count=$(find "$libs" -maxdepth 1 -name '*.jar' | wc -l)
echo "fetch-jars: Kafka $kafka_version, $jar_count jars ($(du -sh "$libs" | cut -f1)) in $libs after $(( $(date +%s) - started )) s"
