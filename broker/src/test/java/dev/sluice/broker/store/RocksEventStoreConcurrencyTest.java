package dev.sluice.broker.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.TableSpan;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One writer and concurrent readers: readers never see a torn transaction at or below the resolved ts. */
class RocksEventStoreConcurrencyTest {

  private static final long TABLE = 5;
  private static final int TXNS = 300;

  @TempDir
  Path dir;

  /** Rows of the transaction at {@code 10 * i}: large ones arrive in three fragments. */
  private static int rowsOf(long i) {
    return i % 7 == 0 ? 60 : 1 + (int) (i % 4);
  }

  @Test
  void readersSeeOnlyWholeTransactionsUpToTheResolvedTs() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try (RocksEventStore store = RocksEventStore.open(StoreCrashWriterMain.config(dir), new SimpleMeterRegistry())) {
      AtomicBoolean writing = new AtomicBoolean(true);
      // one per reader: the writer waits for a scan by each, not for two by whichever reader started first
      Semaphore scans1 = new Semaphore(0);
      Semaphore scans2 = new Semaphore(0);
      CompletableFuture<Integer> reader1 = CompletableFuture.supplyAsync(() -> readUntilDone(store, writing, scans1), pool);
      CompletableFuture<Integer> reader2 = CompletableFuture.supplyAsync(() -> readUntilDone(store, writing, scans2), pool);
      CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
        try {
          write(store, scans1, scans2);
        } finally {
          writing.set(false);
        }
      }, pool);

      // readers first: a failed reader's assertion is the cause worth reporting, not the writer it stalled
      assertThat(reader1.get(60, TimeUnit.SECONDS)).as("scans by reader 1").isPositive();
      assertThat(reader2.get(60, TimeUnit.SECONDS)).as("scans by reader 2").isPositive();
      writer.get(60, TimeUnit.SECONDS);
      assertThat(checkedScan(store)).isEqualTo(TXNS * 10L);
    } finally {
      pool.shutdownNow();
    }
  }

  private static void write(RocksEventStore store, Semaphore scans1, Semaphore scans2) {
    for (long i = 1; i <= TXNS; i++) {
      if (i % 20 == 0) {
        awaitScan(scans1); // let each reader scan between writes, however the threads are scheduled
        awaitScan(scans2);
      }
      long ts = i * 10;
      int rows = rowsOf(i);
      int fragmentRows = rows > 20 ? 20 : rows;
      for (int seq = 0; seq < rows; seq += fragmentRows) {
        StoreBatch batch = store.newBatch();
        for (int s = seq; s < Math.min(rows, seq + fragmentRows); s++) {
          ScannedRow.of(TABLE, ts, s, s).putInto(batch);
        }
        boolean last = seq + fragmentRows >= rows;
        if (last) {
          batch.setPosition(new SourcePosition(ts, ts + 1));
          batch.setResolvedTs(ts);
        }
        store.write(batch, false);
      }
    }
  }

  private static void awaitScan(Semaphore scans) {
    try {
      if (!scans.tryAcquire(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("readers stopped scanning");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static int readUntilDone(RocksEventStore store, AtomicBoolean writing, Semaphore scansDone) {
    int scans = 0;
    while (writing.get()) {
      checkedScan(store);
      scans++;
      scansDone.release();
    }
    return scans;
  }

  /** Scans up to the resolved ts, checks every transaction is whole, returns the resolved ts. */
  private static long checkedScan(RocksEventStore store) {
    long resolved = store.resolvedTs();
    long last = store.lastCommitTs(TABLE);
    assertThat(last).as("lastCommitTs is published before the resolved ts").isGreaterThanOrEqualTo(resolved);
    Map<Long, Integer> rowsPerTxn = new HashMap<>();
    for (ScannedRow row : ScannedRow.drain(store.scan(TableSpan.wholeTable(TABLE), 0, resolved, null))) {
      rowsPerTxn.merge(row.commitTs(), 1, Integer::sum);
    }
    for (long i = 1; i * 10 <= resolved; i++) {
      assertThat(rowsPerTxn.get(i * 10)).as("rows of txn %d at resolved ts %d", i * 10, resolved)
          .isEqualTo(rowsOf(i));
    }
    assertThat(rowsPerTxn).hasSize((int) (resolved / 10));
    return resolved;
  }

  @Test
  void closeWaitsForOpenScansAndTheirReadersFinish() throws Exception {
    RocksEventStore store = RocksEventStore.open(StoreCrashWriterMain.config(dir), new SimpleMeterRegistry());
    StoreBatch batch = store.newBatch();
    for (long seq = 0; seq < 100; seq++) {
      ScannedRow.of(TABLE, 10, seq, 0).putInto(batch);
    }
    batch.setResolvedTs(10);
    store.write(batch, true);
    RowScan scan = store.scan(TableSpan.wholeTable(TABLE), 0, 10, null);
    assertThat(scan.next()).isTrue();

    CompletableFuture<Void> closing = CompletableFuture.runAsync(store::close);
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
        assertThatThrownBy(() -> store.scan(TableSpan.wholeTable(TABLE), 0, 10, null))
            .isInstanceOf(IllegalStateException.class));
    // the store is closing: the open scan must still read safely from RocksDB
    List<ScannedRow> rest = ScannedRow.drain(scan);

    assertThat(rest).hasSize(99);
    closing.get(5, TimeUnit.SECONDS);
    assertThat(store.stats().openScans()).isZero();
  }
}
