#!/usr/bin/env bash
# Runs the end-to-end benchmark harness (it/) and writes docs/BENCHMARKS.md + docs/benchmarks.json.
# usage: scripts/bench.sh quick|full [what,...]   (what: event-service; default: all harness benches)
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-full}
only=${2:-event-service}
mvn -B -ntp -q -DskipTests install
cp="$(cat it/target/bench.classpath):it/target/classes"
exec java -Xmx2g -cp "$cp" dev.sluice.it.bench.BenchMain --mode "$mode" --docs docs --only "$only" --work it/target/bench
