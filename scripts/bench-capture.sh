#!/usr/bin/env bash
# Capture benchmark (broker/src/test/java/dev/sluice/broker/capture/CaptureBenchmark.java): a pgbench
# workload on an embedded PostgreSQL 17, read back (a) raw through PgJDBC's pgoutput stream and (b) by
# the full Sluice capture into a durable RocksEventStore, from two slots over the same WAL, 3 runs.
# Rewrites the "## Capture (PostgreSQL)" section of docs/BENCHMARKS.md (creating the file if missing).
# About 4-5 minutes on 2 cores. Needs: mvn, java 17, pgbench (scripts/install-test-deps.sh), python3.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-3}; SCALE=${SCALE:-10}; SECONDS_PER_RUN=${SECONDS_PER_RUN:-30}; CLIENTS=${CLIENTS:-4}
OUT=broker/target/bench-capture
MVN=(mvn -B -q -ntp)
mkdir -p "$OUT"
command -v pgbench >/dev/null || { echo "pgbench is missing: run scripts/install-test-deps.sh" >&2; exit 1; }

echo "== building (test-compile + classpath)"
"${MVN[@]}" -pl broker -am -DskipTests test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench-classpath.txt -Dmdep.includeScope=test
CP="broker/target/test-classes:broker/target/classes:$(cat broker/target/bench-classpath.txt)"

echo "== capture benchmark: $RUNS runs, pgbench -i -s $SCALE, pgbench -T $SECONDS_PER_RUN -c $CLIENTS -N"
(cd broker && java -Xmx2g -Djava.io.tmpdir="$PWD/target" -cp "$(echo "$CP" | sed 's#broker/target#target#g')" \
  dev.sluice.broker.capture.CaptureBenchmark --runs "$RUNS" --scale "$SCALE" --seconds "$SECONDS_PER_RUN" \
  --clients "$CLIENTS" --work-dir target/bench-capture) | tee "$OUT/runs.jsonl"

MACHINE="$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), kernel $(uname -r), $(java -version 2>&1 | head -1), $(pgbench --version)"
OUT="$OUT" MACHINE="$MACHINE" SCALE="$SCALE" SECS="$SECONDS_PER_RUN" CLIENTS="$CLIENTS" python3 - <<'PY'
import json, os, re, statistics, datetime

runs = [r for r in (json.loads(l) for l in open(os.path.join(os.environ["OUT"], "runs.jsonl")) if l.startswith("{"))
        if not r.get("warmup")]
def k(x):
    return f"{x / 1e3:.0f}k"
med = lambda key: statistics.median(r[key] for r in runs)
def split(r):
    parts = dict(p.split("=") for p in r.get("sluice_cpu_breakdown_us_per_row", "").split())
    names = {"sluice-capture": "capture", "sluice-capture-writer": "writer", "jit": "JIT"}
    return ", ".join(f"{names[n]} {float(parts[n]):.1f}" for n in names if n in parts)
lines = ["## Capture (PostgreSQL)", ""]
lines.append(f"Machine: {os.environ['MACHINE']}. Run {datetime.date.today().isoformat()}.")
lines.append(f"Command: `scripts/bench-capture.sh` (`make bench`): per run a fresh embedded PostgreSQL 17.11,")
lines.append(f"`pgbench -i -s {os.environ['SCALE']}`, publication + two slots, `pgbench -T {os.environ['SECS']} -c {os.environ['CLIENTS']} -N`, one marker row; then the same")
lines.append("WAL is read (a) raw: PgJDBC replication stream, pgoutput proto 1, counting Insert/Update/Delete")
lines.append("messages without decoding them; (b) Sluice: full capture (decode, typed values, RowChange encoding,")
lines.append("key hash) into a fresh RocksEventStore with group commit (synced batches; flush LSN confirmed after")
lines.append("each sync), until the marker row is durable. The order of (a) and (b) alternates per run; a 20 s")
lines.append("warm-up run (not shown) JIT-compiles both paths first. JVM CPU µs/row: CPU time of the benchmark JVM")
lines.append("(all threads, PostgreSQL excluded) during the read, per row; the last column splits Sluice's into its")
lines.append("capture thread, writer thread (RocksDB writes) and JIT compilation.")
lines.append("")
lines.append("| run | order | load avg | pgbench tps | row changes | raw rows/s | Sluice rows/s | Sluice ÷ raw | JVM CPU µs/row raw | JVM CPU µs/row Sluice | txns per synced batch | synced batches | Sluice CPU split µs/row |")
lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for r in runs:
    lines.append(f"| {r['run']} | {r['order']} | {r['load_before']}→{r['load_after']} | {r['pgbench_tps']:.0f} | {r['raw_rows']:,} | "
                 f"{k(r['raw_rows_per_s'])} | {k(r['sluice_rows_per_s'])} | {r['ratio'] * 100:.0f} % | "
                 f"{r['raw_cpu_us_per_row']:.1f} | {r['sluice_cpu_us_per_row']:.1f} | {r['group_commit_txns_mean']:.0f} | {r['sluice_syncs']:,} | "
                 f"{split(r)} |")
ratio = med("ratio")
lines.append(f"| **median** | | | {med('pgbench_tps'):.0f} | | **{k(med('raw_rows_per_s'))}** | **{k(med('sluice_rows_per_s'))}** | "
             f"**{ratio * 100:.0f} %** | {med('raw_cpu_us_per_row'):.1f} | {med('sluice_cpu_us_per_row'):.1f} | | | |")
lines.append("")
verdict = "meets" if ratio >= 0.90 else f"misses by {(0.90 - ratio) * 100:.0f} points"
lines.append(f"Target: Sluice ≥ 90 % of the raw read (as `capture_vs_raw*` in the it/ harness: the raw reader is the")
lines.append(f"physical limit of any capture on this machine). Median ratio {ratio * 100:.0f} %: {verdict} the target.")
lines.append("For reference (../shared/research/limits-here.md, same machine kind): raw pgoutput ≈ 250k rows/s,")
lines.append("Debezium embedded engine ≈ 41k rows/s, one RocksDB fsync per transaction caps near 45k rows/s.")
lines.append("")
section = "\n".join(lines)
path = "docs/BENCHMARKS.md"
text = open(path).read() if os.path.exists(path) else "# Benchmarks\n\nFigures written by the benchmark scripts; see each section for its command.\n"
notes = ""
m = re.search(r"^## Capture \(PostgreSQL\)\n.*?(?=^## |\Z)", text, re.S | re.M)
if m:
    old = m.group(0)
    n = re.search(r"^### Notes\n.*", old, re.S | re.M)   # the hand-written notes survive a rerun
    notes = n.group(0) if n else ""
    text = text[:m.start()] + section + ("\n" + notes.rstrip("\n") + "\n" if notes else "") + "\n" + text[m.end():]
else:
    text = text.rstrip("\n") + "\n\n" + section + "\n"
open(path, "w").write(text.rstrip("\n") + "\n")
print(section)
PY
