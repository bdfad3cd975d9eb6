package dev.sluice.broker.capture;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.TableSpan;
import dev.sluice.broker.store.EventStoreConfig;
import dev.sluice.broker.store.RocksEventStore;
import dev.sluice.broker.store.RowScan;
import dev.sluice.broker.store.SourcePosition;
import dev.sluice.schema.RocksSchemaStore;
import dev.sluice.schema.SchemaStoreConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.List;
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
