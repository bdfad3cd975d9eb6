#!/usr/bin/env bash
# Runs the schema-store JMH benchmark (dev.sluice.schema.bench.SchemaStoreBenchmark) and writes the
# "## Schema store (JMH)" section of docs/BENCHMARKS.md: machine, command, p50/p90/p99, mean ± error,
# allocation per op. Keeps the section's "### Notes (schema store)" part, which is written by hand.
# Not part of `mvn test`. Needs jq. Takes ~6 minutes.
#
#   scripts/bench-schema-store.sh              # full run
#   JMH_ARGS="-wi 1 -i 1 -r 1s" scripts/bench-schema-store.sh   # quick smoke run (figures not meaningful)
set -euo pipefail

cd "$(dirname "$0")/.."
MVN=${MVN:-mvn -B -q}
JMH_ARGS=${JMH_ARGS:-"-f 1 -wi 3 -w 2s -i 5 -r 3s"}
OUT=docs/BENCHMARKS.md
JSON=schema-store/target/jmh-schema-store.json
HEADING="## Schema store (JMH)"
NOTES="### Notes (schema store)"

command -v jq >/dev/null || { echo "jq is required (apt-get install jq)" >&2; exit 1; }

# test classes (the benchmark and its JMH-generated code) plus the test classpath; -am builds api/ too
$MVN -pl schema-store -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench.cp -Dmdep.includeScope=test
CP="schema-store/target/test-classes:schema-store/target/classes:$(cat schema-store/target/bench.cp)"

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
# shellcheck disable=SC2086  # JMH_ARGS is a list of words
java -cp "$CP" org.openjdk.jmh.Main SchemaStoreBenchmark $JMH_ARGS -prof gc -rf json -rff "$JSON"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

rows=$(jq -r '.[] |
  [ (.benchmark | split(".") | last)
      + (if (.params // {}) == {} then "" else " (" + (.params | to_entries | map("\(.key)=\(.value)") | join(", ")) + ")" end),
    .primaryMetric.scorePercentiles["50.0"], .primaryMetric.scorePercentiles["90.0"],
    .primaryMetric.scorePercentiles["99.0"], .primaryMetric.score, .primaryMetric.scoreError,
    (.secondaryMetrics["gc.alloc.rate.norm"].score // -1) ] | @tsv' "$JSON" |
  awk -F'\t' '{ alloc = ($7 < 0) ? "n/a" : sprintf("%.0f", $7);
                printf "| `%s` | %.0f | %.0f | %.0f | %.0f ± %.0f | %s |\n", $1, $2, $3, $4, $5, $6, alloc }')
hit_p50=$(jq -r '.[] | select(.benchmark | endswith(".tableInfoAtCacheHit")) | .primaryMetric.scorePercentiles["50.0"]' "$JSON")
verdict=$(awk -v p="$hit_p50" 'BEGIN { if (p < 100) print "**met**"; else print "**missed**" }')

section=$(mktemp)
cat >"$section" <<EOF
$HEADING
<!-- written by scripts/bench-schema-store.sh; edit only the "$NOTES" part below -->

Run $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores, Linux $(uname -r), $(java -version 2>&1 | head -1).
Load average (1/5/15 min) before: $load_before, after: $load_after (the machine is shared with other builds).

Command: \`scripts/bench-schema-store.sh\`, which runs
\`java -cp <schema-store test classpath> org.openjdk.jmh.Main SchemaStoreBenchmark $JMH_ARGS -prof gc\`.
Store: 1,000 tables × 8 versions (8–15 columns), lookups at random ts over 1,024 precomputed (table, ts)
pairs; the miss store has the cache disabled (\`cacheMaxEntries = 0\`), so every lookup reads RocksDB
and decodes the protobuf. Mode: SampleTime (each op timed alone, so figures include ~20–30 ns of
\`System.nanoTime\` overhead); times in ns/op.

| benchmark | p50 | p90 | p99 | mean ± error (99.9%) | alloc B/op |
|---|---:|---:|---:|---:|---:|
$rows

Target: a cache-hit \`tableInfoAt\` under 100 ns median: $verdict (p50 = ${hit_p50} ns).

EOF

mkdir -p docs
[ -f "$OUT" ] || printf '# Benchmarks\n\nFigures written by the benchmark scripts; each owns one section.\n\n' >"$OUT"
# keep the notes of the old section, or start them
notes=$(mktemp)
awk -v h="$HEADING" -v n="$NOTES" '
  $0 == h { in_section = 1; next }
  in_section && /^## / { exit }
  in_section && $0 == n { keep = 1 }
  keep { print }' "$OUT" >"$notes"
[ -s "$notes" ] || printf '%s\n(none yet)\n' "$NOTES" >"$notes"
# the old file without the old section, the new section in its place (or at the end)
awk -v h="$HEADING" -v sf="$section" -v nf="$notes" '
  function emit(  line) {
    while ((getline line < sf) > 0) print line
    while ((getline line < nf) > 0) print line
    done = 1
  }
  $0 == h { skipping = 1; emit(); next }
  skipping && /^## / { skipping = 0 }
  !skipping { print }
  END { if (!done) { print ""; emit() } }' "$OUT" >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
rm -f "$section" "$notes"
echo "wrote the schema-store section of $OUT (cache hit p50 = ${hit_p50} ns)"
