package dev.sluice.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One writer applies, resolves and collects while readers query at ts between the GC point and the
 * resolved ts they observed: every answer must be the final one (what the whole history says), or a
 * {@link BelowGcPointException} that a GC racing with the query explains.
 */
class ConcurrentReadersTest {

  private static final int DDLS = 1_200;
  private static final int READERS = 3;

  @TempDir
  Path dir;

  @Test
  void readersSeeOnlyFinalAnswersWhileTheWriterRuns() throws Exception {
    List<DdlEvent> script = DdlScript.first(DDLS);
    SchemaModel model = new SchemaModel();
    script.forEach(model::apply);
    model.advanceResolvedTs(Long.MAX_VALUE);
    long lastTableId = script.get(DDLS - 1).tableId();

    ExecutorService pool = Executors.newFixedThreadPool(READERS + 1);
    try (RocksSchemaStore store = RocksSchemaStore.open(
        SchemaStoreConfig.at(dir).withSyncWrites(false).withCacheMaxEntries(64), new SimpleMeterRegistry())) {
      AtomicBoolean writing = new AtomicBoolean(true);
      CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
        try {
          for (int i = 0; i < DDLS; i++) {
            DdlEvent ddl = script.get(i);
            store.apply(ddl);
            store.advanceResolvedTs(ddl.commitTs());
            if (i % 100 == 99) {
              store.gc(ddl.commitTs() - 500);
            }
          }
        } finally {
          writing.set(false);
        }
      }, pool);
      List<CompletableFuture<Long>> readers = new ArrayList<>();
      for (int r = 0; r < READERS; r++) {
        readers.add(CompletableFuture.supplyAsync(() -> readUntil(writing, store, model, lastTableId), pool));
      }
      writer.get(60, TimeUnit.SECONDS);
      for (CompletableFuture<Long> reader : readers) {
        assertThat(reader.get(60, TimeUnit.SECONDS)).as("queries checked by a reader").isPositive();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** Queries until the writer is done (and at least once more); returns how many were checked. */
  private static long readUntil(AtomicBoolean writing, SchemaStore store, SchemaModel model, long lastTableId) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    long checked = 0;
    boolean last = false;
    while (!last) {
      last = !writing.get();
      long resolved = store.resolvedTs();
      long gc = store.gcTs();
      long ts = gc + (resolved > gc ? random.nextLong(resolved - gc + 1) : 0);
      long id = 1 + random.nextLong(lastTableId + 1);
      Answer info = Answer.from(() -> store.tableInfoAt(id, ts));
      Answer events = Answer.from(() -> store.ddlEvents(id, ts, resolved));
      assertFinal(info, model.tableInfoAt(id, ts), store, ts, "tableInfoAt(" + id + ", " + ts + ")");
      assertFinal(events, model.ddlEvents(id, ts, resolved), store, ts,
          "ddlEvents(" + id + ", " + ts + ", " + resolved + ")");
      checked++;
    }
    return checked;
  }

  private static void assertFinal(Answer actual, Answer expected, SchemaStore store, long ts, String query) {
    if (actual.error() == BelowGcPointException.class) {
      assertThat(ts).as("%s below the GC point it reported", query).isLessThan(actual.errorTs());
      assertThat(store.gcTs()).as(query).isGreaterThanOrEqualTo(actual.errorTs());
    } else {
      assertThat(actual).as(query).isEqualTo(expected);
    }
  }
}
