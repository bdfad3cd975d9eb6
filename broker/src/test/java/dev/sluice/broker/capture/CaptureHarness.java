package dev.sluice.broker.capture;

import static org.awaitility.Awaitility.await;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.sluice.api.TableSpan;
import dev.sluice.api.v1.RowChange;
import dev.sluice.broker.store.EventStoreConfig;
import dev.sluice.broker.store.RocksEventStore;
import dev.sluice.broker.store.RowScan;
import dev.sluice.broker.upstream.UpstreamConfig;
import dev.sluice.schema.RocksSchemaStore;
import dev.sluice.schema.SchemaStoreConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Real stores in a directory plus a capture against a {@link TestPostgres}; closes in reverse order. */
final class CaptureHarness implements AutoCloseable {

  final RocksEventStore events;
  final RocksSchemaStore schemas;
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final PgLogicalCapture capture;

  /** One stored row change with its key. */
  record StoredRow(long commitTs, long rowSeq, int keyHash, RowChange change) {}

  CaptureHarness(Path dir, UpstreamConfig upstream, CaptureConfig config) {
    events = RocksEventStore.open(EventStoreConfig.defaults(dir.resolve("events")), registry);
    schemas = RocksSchemaStore.open(SchemaStoreConfig.at(dir.resolve("schema")), registry);
    capture = new PgLogicalCapture(upstream, config, events, schemas, registry);
  }

  static CaptureHarness start(Path dir, TestPostgres pg, CaptureConfig config) {
    CaptureHarness h = new CaptureHarness(dir, UpstreamConfig.external(pg.jdbcUrl(), "postgres", null), config);
    h.capture.start();
    return h;
  }

  /** Test defaults: a 50 ms heartbeat so waits are short. */
  static CaptureConfig config() {
    return CaptureConfig.defaults("test").withHeartbeatInterval(Duration.ofMillis(50))
        .withRetryBackoff(Duration.ofMillis(50), Duration.ofMillis(500));
  }

  /** Waits until every transaction committed before {@code lsn} is stored and resolved. */
  void awaitResolved(long lsn) {
    await().atMost(Duration.ofSeconds(60)).until(() -> events.resolvedTs() >= lsn && schemas.resolvedTs() >= lsn);
  }

  /** Every stored row change of the table up to the resolved ts, in commit order. */
  List<StoredRow> rows(long tableId) {
    List<StoredRow> out = new ArrayList<>();
    try (RowScan scan = events.scan(TableSpan.wholeTable(tableId), 0, events.resolvedTs(), null)) {
      while (scan.next()) {
        out.add(new StoredRow(scan.commitTs(), scan.rowSeq(), scan.keyHash(), RowChange.parseFrom(scan.rowChange())));
      }
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException(e);
    }
    return out;
  }

  double counter(String name) {
    return registry.find(name).counters().stream().mapToDouble(c -> c.count()).sum();
  }

  @Override
  public void close() {
    capture.close();
    schemas.close();
    events.close();
  }
}
