package dev.sluice.broker.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.sluice.api.TableSpan;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Durability under {@code kill -9}: a child JVM writes synced batches and acknowledges each; after a
 * SIGKILL at a random point every acknowledged batch is stored, no batch is torn, and the position
 * names the last whole batch, from which the next child resumes.
 */
class RocksEventStoreCrashTest {

  private static final int ROUNDS = 4;

  @TempDir
  Path dir;

  @Test
  @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void everyAcknowledgedBatchSurvivesKillAndNoBatchIsTorn() throws Exception {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    Path data = dir.resolve("store");
    long acked = 0;
    for (int round = 1; round <= ROUNDS; round++) {
      int killAfter = 1 + random.nextInt(150);
      long lastAck = runChildUntilKilled(data, killAfter, round);
      assertThat(lastAck).as("round %d acks (seed %d)", round, seed).isGreaterThan(acked);
      acked = lastAck;
      long stored = verifyStore(data, acked, "round " + round + ", seed " + seed);
      assertThat(stored).isGreaterThanOrEqualTo(acked);
    }
  }

  /** Starts the writer, reads acks until {@code killAfter} of them, SIGKILLs it; returns the last ack. */
  private long runChildUntilKilled(Path data, int killAfter, int round) throws Exception {
    Path stderr = dir.resolve("child-" + round + ".err");
    ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"),
        StoreCrashWriterMain.class.getName(), data.toString())
        .redirectError(stderr.toFile());
    Process child = builder.start();
    try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      long firstBatch = -1;
      long lastAck = -1;
      int acks = 0;
      while (acks < killAfter) {
        String line = out.readLine();
        if (line == null) {
          fail("writer exited before " + killAfter + " acks (exit " + child.waitFor() + "): "
              + Files.readString(stderr));
        }
        if (line.startsWith("READY ")) {
          firstBatch = Long.parseLong(line.substring(6));
        } else if (line.startsWith("ACK ")) {
          lastAck = Long.parseLong(line.substring(4));
          acks++;
          assertThat(lastAck).as("acks are consecutive from the resume point").isEqualTo(firstBatch + acks - 1);
        }
      }
      return lastAck;
    } finally {
      child.destroyForcibly(); // SIGKILL on Linux
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).as("child ended").isTrue();
    }
  }

  /** Checks the store holds exactly the whole batches up to its position; returns that last batch. */
  private long verifyStore(Path data, long acked, String context) throws IOException {
    try (RocksEventStore store = RocksEventStore.open(StoreCrashWriterMain.config(data), new SimpleMeterRegistry())) {
      SourcePosition position = store.position().orElseThrow();
      long lastBatch = StoreCrashWriterMain.batchOf(position.lastCommitTs());
      long lastTs = StoreCrashWriterMain.commitTs(lastBatch, StoreCrashWriterMain.TXNS_PER_BATCH);
      assertThat(position).as(context).isEqualTo(
          new SourcePosition(lastTs, StoreCrashWriterMain.restartPosition(lastTs)));
      assertThat(lastBatch).as("every acknowledged batch is durable (%s)", context).isGreaterThanOrEqualTo(acked);
      assertThat(store.resolvedTs()).as(context).isEqualTo(lastTs);

      List<ScannedRow> expected = new ArrayList<>();
      List<TimeMark> expectedMarks = new ArrayList<>();
      for (long n = 1; n <= lastBatch; n++) {
        for (int k = 1; k <= StoreCrashWriterMain.TXNS_PER_BATCH; k++) {
          expected.addAll(StoreCrashWriterMain.txnRows(n, k));
          long ts = StoreCrashWriterMain.commitTs(n, k);
          expectedMarks.add(new TimeMark(ts, ts * 1_000));
        }
      }
      for (long table : StoreCrashWriterMain.TABLES) {
        // to = MAX: rows of a batch beyond the position would show here as a torn batch
        List<ScannedRow> rows = ScannedRow.drain(store.scan(TableSpan.wholeTable(table), 0, Long.MAX_VALUE, null));
        assertThat(rows).as("table %d (%s)", table, context)
            .containsExactlyElementsOf(expected.stream().filter(r -> r.tableId() == table).toList());
        assertThat(store.lastCommitTs(table)).isEqualTo(lastTs);
      }
      assertThat(store.timeMarks(0, Long.MAX_VALUE)).as(context).containsExactlyElementsOf(expectedMarks);
      return lastBatch;
    }
  }
}
