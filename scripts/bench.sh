#!/usr/bin/env bash
# Runs the end-to-end benchmark harness (it/, dev.sluice.it.bench.BenchMain) and writes its sections of
# docs/BENCHMARKS.md and its figures into docs/benchmarks.json.
#   scripts/bench.sh quick            # make bench-quick: every harness figure reduced, one run (< 10 min)
#   scripts/bench.sh full             # part of make bench: medians of 3 runs (~16 min of harness on 2 cores)
#   scripts/bench.sh full e2e,catchup # only some: capture, snapshot, e2e, catchup, stalled-sink, apply-mode,
#                                     #   event-service (fanout, control-plane, idle-scale), cluster-failover, all
# Builds it/ with the Maven profile `bench`, the only build that downloads Debezium (the capture and snapshot
# peer). The snapshot benchmark also needs the machine's PostgreSQL server and pg_dump (postgresql-contrib).
# Needs: mvn, java 17, pgbench (scripts/install-test-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-full}
only=${2:-all}
case "$mode" in quick|full) ;; *) echo "usage: $0 quick|full [benchmarks]" >&2; exit 2 ;; esac
command -v pgbench >/dev/null || { echo "pgbench is missing: run scripts/install-test-deps.sh" >&2; exit 1; }
# install, not package: the harness and the brokers it starts run the jars in ~/.m2 (it/target/bench.classpath),
# so a package alone would bench whatever was installed last
mvn -B -ntp -q -Pbench -DskipTests -pl it -am install
cp="$(cat it/target/bench.classpath):it/target/classes"
mkdir -p it/target/bench
exec java -Xmx4g -Djava.io.tmpdir="$PWD/it/target" -cp "$cp" dev.sluice.it.bench.BenchMain \
  --mode "$mode" --docs docs --only "$only" --work it/target/bench
