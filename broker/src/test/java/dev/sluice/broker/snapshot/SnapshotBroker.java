package dev.sluice.broker.snapshot;

import static org.awaitility.Awaitility.await;

import dev.sluice.broker.Broker;
import dev.sluice.broker.BrokerConfig;
import dev.sluice.broker.capture.CaptureConfig;
import dev.sluice.broker.capture.TestPostgres;
import dev.sluice.broker.upstream.DemoWorkloadConfig;
import dev.sluice.broker.upstream.UpstreamConfig;
import java.nio.file.Path;
import java.time.Duration;

/** A real PostgreSQL and a broker capturing it, with small snapshot chunks and quick retries, for snapshot tests. */
final class SnapshotBroker implements AutoCloseable {

  final TestPostgres pg;
  final Broker broker;

  private SnapshotBroker(TestPostgres pg, Broker broker) {
    this.pg = pg;
    this.broker = broker;
  }

  static SnapshotBroker start(Path dir, int chunkRows, long chunkBytes) {
    TestPostgres pg = TestPostgres.start();
    try {
      BrokerConfig base = new BrokerConfig("node-snap", dir, UpstreamConfig.external(pg.jdbcUrl(), "postgres", null),
          CaptureConfig.defaults("node-snap").withHeartbeatInterval(Duration.ofMillis(50)), false,
          DemoWorkloadConfig.defaults());
      var es = base.serve().eventService();
      BrokerConfig config = base.withServe(base.serve().withEventService(es.withSnapshot(es.snapshot()
          .withChunkRows(chunkRows).withChunkBytes(chunkBytes)
          .withRetryBackoff(Duration.ofMillis(50), Duration.ofMillis(500)))));
      Broker broker = new Broker(config);
      broker.start();
      return new SnapshotBroker(pg, broker);
    } catch (RuntimeException e) {
      pg.close();
      throw e;
    }
  }

  int port() {
    return broker.eventService().port();
  }

  /** The upstream's WAL position once the broker has captured everything committed before this call. */
  long caughtUp() {
    long lsn = pg.currentLsn();
    await().atMost(Duration.ofSeconds(30)).until(() -> broker.eventStore().resolvedTs() >= lsn
        && broker.schemaStore().resolvedTs() >= lsn);
    return lsn;
  }

  @Override
  public void close() {
    try {
      broker.close();
    } finally {
      pg.close();
    }
  }
}
