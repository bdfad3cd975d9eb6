package dev.sluice.broker.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.TableSpan;
import dev.sluice.broker.store.EventStore;
import dev.sluice.broker.store.EventStoreConfig;
import dev.sluice.broker.store.ScanCursor;
import dev.sluice.broker.store.StoreBatch;
import dev.sluice.broker.store.TimeMark;
import dev.sluice.broker.store.RocksEventStore;
import dev.sluice.broker.store.RowScan;
import dev.sluice.broker.store.SourcePosition;
import dev.sluice.schema.RocksSchemaStore;
import dev.sluice.schema.SchemaStoreConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Group commit against the real stores: what is confirmed is durable, fragments never advance the resolved ts. */
class GroupCommitTest {

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final AtomicLong clock = new AtomicLong();
  private final List<String> confirmations = new CopyOnWriteArrayList<>();
  private RocksEventStore events;
  private RocksSchemaStore schemas;
  private CaptureMetrics metrics;

  @BeforeEach
  void open(@TempDir Path dir) {
    events = RocksEventStore.open(EventStoreConfig.defaults(dir.resolve("events")), registry);
    schemas = RocksSchemaStore.open(SchemaStoreConfig.at(dir.resolve("schema")), registry);
    metrics = new CaptureMetrics(registry, () -> 0);
  }

  @AfterEach
  void close() {
    schemas.close();
    events.close();
  }

  private GroupCommit groupCommit(CaptureConfig config) {
    // the confirmer records what the store shows at the moment of confirmation
    return new GroupCommit(events, schemas, config, metrics,
        endLsn -> confirmations.add(endLsn + "@" + events.position().map(SourcePosition::restartPosition).orElse(0L)
            + "/" + events.resolvedTs() + "/" + schemas.resolvedTs()),
        clock::get);
  }

  @Test
  void confirmsTheLastEndLsnOnlyOnceTheBatchHoldingItIsDurable() {
    try (GroupCommit gc = groupCommit(CaptureHarness.config())) {
      gc.addRow(10, 100, 0, 7, new byte[] {1});
      gc.commit(100, 108, 1_000);
      gc.maybeFlush(); // neither big nor old enough: kept
      gc.addRow(10, 200, 0, 7, new byte[] {2});
      gc.commit(200, 208, 2_000);
      assertThat(events.resolvedTs()).isZero();
      gc.drain();
      assertThat(confirmations).containsExactly("208@208/200/200");
      assertThat(gc.durableCommitTs()).isEqualTo(200);
      assertThat(gc.durableCommitTimeMicros()).isEqualTo(2_000);
      assertThat(events.timeMarks(0, 200)).extracting(m -> m.commitTs()).containsExactly(100L, 200L);
      assertThat(registry.get("sluice.capture.group.commit.txns").summary().max()).isEqualTo(2);
    }
  }

  /**
   * Regression for the live p99 during a snapshot: a group's events went out only after its fsync, which waits
   * 100-200 ms behind a downstream database's writeback on a shared disk. Now a written group is served at once
   * (the store's resolved ts is past it while its fsync still runs) and confirmed upstream only after the fsync.
   */
  @Test
  void aWrittenGroupIsServedBeforeItsSyncAndConfirmedOnlyAfterIt() throws Exception {
    CountDownLatch syncing = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    EventStore gated = new SyncGatedStore(events, syncing, release);
    try (GroupCommit gc = new GroupCommit(gated, schemas, CaptureHarness.config(), metrics,
        endLsn -> confirmations.add(endLsn + "/" + events.resolvedTs()), clock::get)) {
      gc.addRow(10, 100, 0, 7, new byte[] {1});
      gc.commit(100, 108, 1_000);
      gc.flushIfPending();
      assertThat(syncing.await(30, TimeUnit.SECONDS)).as("the fsync behind the write began").isTrue();
      assertThat(events.resolvedTs()).as("served while its fsync runs").isEqualTo(100);
      try (RowScan scan = events.scan(TableSpan.wholeTable(10), 0, 100, null)) {
        assertThat(scan.next()).isTrue();
      }
      assertThat(confirmations).as("not confirmed before it is durable").isEmpty();
      assertThat(gc.durableCommitTs()).isZero();
      release.countDown();
      await().atMost(Duration.ofSeconds(30)).until(() -> !confirmations.isEmpty());
      assertThat(confirmations).containsExactly("108/100");
      assertThat(gc.durableCommitTs()).isEqualTo(100);
    }
  }

  /** The real store, its sync held until released. */
  private static final class SyncGatedStore implements EventStore {
    private final RocksEventStore store;
    private final CountDownLatch syncing;
    private final CountDownLatch release;

    SyncGatedStore(RocksEventStore store, CountDownLatch syncing, CountDownLatch release) {
      this.store = store;
      this.syncing = syncing;
      this.release = release;
    }

    @Override public StoreBatch newBatch() { return store.newBatch(); }
    @Override public void write(StoreBatch batch, boolean sync) { store.write(batch, sync); }
    @Override public void sync() {
      syncing.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      store.sync();
    }
    @Override public long resolvedTs() { return store.resolvedTs(); }
    @Override public long gcTs() { return store.gcTs(); }
    @Override public long floorTs() { return store.floorTs(); }
    @Override public Optional<SourcePosition> position() { return store.position(); }
    @Override public long lastCommitTs(long tableId) { return store.lastCommitTs(tableId); }
    @Override public RowScan scan(TableSpan span, long from, long to, ScanCursor cursor) {
      return store.scan(span, from, to, cursor);
    }
    @Override public List<TimeMark> timeMarks(long from, long to) { return store.timeMarks(from, to); }
    @Override public List<TimeMark> timeMarks(long from, long to, int limit) { return store.timeMarks(from, to, limit); }
    @Override public Optional<TimeMark> timeMarkAtOrBefore(long ts) { return store.timeMarkAtOrBefore(ts); }
    @Override public void addResolvedListener(EventStore.ResolvedListener listener) { store.addResolvedListener(listener); }
    @Override public void gc(long ts) { store.gc(ts); }
    @Override public void close() { store.close(); }
  }

  @Test
  void delayedBatchIsWrittenOnceItsOldestTransactionWaitedTheMaxDelay() {
    CaptureConfig config = CaptureHarness.config();
    try (GroupCommit gc = groupCommit(config)) {
      gc.commit(100, 108, 1);
      gc.maybeFlush();
      assertThat(confirmations).isEmpty();
      clock.addAndGet(config.groupCommitMaxDelay().toNanos());
      gc.commit(200, 208, 2);
      gc.maybeFlush();
      gc.drain();
      assertThat(confirmations).containsExactly("208@208/200/200");
    }
  }

  @Test
  void largeTransactionIsWrittenInFragmentsThatStayInvisibleUntilCommit() {
    try (GroupCommit gc = groupCommit(CaptureHarness.config().withFragment(3, 1L << 20))) {
      for (int seq = 0; seq < 7; seq++) {
        gc.addRow(10, 500, seq, seq, new byte[] {(byte) seq});
      }
      gc.drain(); // nothing committed: drains only the fragment writes
      assertThat(registry.get("sluice.capture.fragments").counter().count()).isEqualTo(2);
      assertThat(events.resolvedTs()).isZero();
      assertThat(confirmations).isEmpty();
      gc.commit(500, 508, 5);
      gc.drain();
      try (RowScan scan = events.scan(TableSpan.wholeTable(10), 0, events.resolvedTs(), null)) {
        int n = 0;
        while (scan.next()) {
          assertThat(scan.rowSeq()).isEqualTo(n++);
        }
        assertThat(n).isEqualTo(7);
      }
      assertThat(confirmations).containsExactly("508@508/500/500");
    }
  }

  @Test
  void discardForgetsWhatWasNotHandedOver() {
    try (GroupCommit gc = groupCommit(CaptureHarness.config())) {
      gc.addRow(10, 100, 0, 1, new byte[] {1});
      gc.commit(100, 108, 1);
      gc.discard();
      gc.drain();
      assertThat(events.resolvedTs()).isZero();
      assertThat(events.position()).isEmpty();
      assertThat(confirmations).isEmpty();
    }
  }
}
