package dev.sluice.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills (SIGKILL) a child JVM while it applies DDLs with the default synced config and checks that the
 * reopened store holds exactly a prefix of the script: every acknowledged DDL, at most one more (the one
 * in flight), each whole, with versions that match, and that it accepts the next DDL.
 */
class SchemaStoreCrashTest {

  private static final int ROUNDS = 4;

  @TempDir
  Path root;

  @Test
  @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void killedWriterLeavesExactlyAPrefixOfTheAppliedDdls() throws Exception {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (int round = 0; round < ROUNDS; round++) {
      int killAfter = 1 + random.nextInt(60);
      String context = "seed " + seed + ", round " + round + ", kill after " + killAfter + " acks";
      Path dir = root.resolve("store-" + round);
      Path log = root.resolve("child-" + round + ".log");
      int acked = runAndKill(dir, log, killAfter, context);
      assertReopenedStoreIsAPrefix(dir, acked, context + ", " + acked + " acked in total");
    }
  }

  /** Starts the child, kills it after {@code killAfter} acks, returns how many it printed in all. */
  private static int runAndKill(Path dir, Path log, int killAfter, String context) throws Exception {
    Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
        "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"),
        "-cp", System.getProperty("java.class.path"), DdlLoopMain.class.getName(), dir.toString())
        .redirectError(log.toFile())
        .start();
    try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      List<DdlEvent> script = DdlScript.first(killAfter);
      int acked = 0;
      String line;
      while (acked < killAfter && (line = out.readLine()) != null) {
        assertThat(line).as("ack %d, %s", acked, context).isEqualTo("ACK " + script.get(acked).commitTs());
        acked++;
      }
      assertThat(acked).as("child died early (%s); its log:%n%s", context, Files.readString(log)).isEqualTo(killAfter);
      // SIGKILL through the handle: Process.destroyForcibly would also close our end of its stdout
      child.toHandle().destroyForcibly();
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).as("child gone, %s", context).isTrue();
      while ((line = out.readLine()) != null) {
        if (line.startsWith("ACK ")) {
          acked++;   // printed before the kill, not yet read
        }
      }
      return acked;
    } finally {
      child.destroyForcibly();
    }
  }

  private static void assertReopenedStoreIsAPrefix(Path dir, int acked, String context) {
    try (RocksSchemaStore store = RocksSchemaStore.open(SchemaStoreConfig.at(dir), new SimpleMeterRegistry())) {
      store.advanceResolvedTs(store.lastDdlTs());
      List<DdlEvent> stored = store.allDdlEvents(0, Long.MAX_VALUE);

      assertThat(stored.size()).as("stored DDLs, %s", context).isBetween(acked, acked + 1);
      List<DdlEvent> prefix = DdlScript.first(stored.size() + 1);
      assertThat(stored).as("stored DDLs are the script's prefix, %s", context).isEqualTo(prefix.subList(0, stored.size()));
      assertThat(store.lastDdlTs()).as(context).isEqualTo(stored.get(stored.size() - 1).commitTs());

      SchemaModel model = new SchemaModel();
      stored.forEach(model::apply);
      for (long id : model.tableIds()) {
        assertThat(Answer.from(() -> store.tableInfoAt(id, Long.MAX_VALUE)))
            .as("latest version of table %d, %s", id, context).isEqualTo(model.tableInfoAt(id, Long.MAX_VALUE));
      }
      store.apply(prefix.get(stored.size()));   // the store goes on where the child stopped
      assertThat(store.lastDdlTs()).isEqualTo(prefix.get(stored.size()).commitTs());
    }
  }
}
