package dev.sluice.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.TableSpan;
import dev.sluice.broker.capture.CaptureConfig;
import dev.sluice.broker.capture.CaptureState;
import dev.sluice.broker.capture.DdlCaptureMode;
import dev.sluice.broker.store.RowScan;
import dev.sluice.broker.upstream.DemoWorkloadConfig;
import dev.sluice.broker.upstream.UpstreamConfig;
import dev.sluice.schema.DdlType;
import dev.sluice.schema.TableInfo;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The broker on its embedded default: upstream, demo workload, capture into both stores, restart. */
class BrokerTest {

  @Test
  void embeddedDefaultCapturesTheDemoWorkloadAndResumesAfterRestart(@TempDir Path dir) throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    BrokerConfig config = new BrokerConfig("node-t", dir,
        UpstreamConfig.embedded(dir.resolve("upstream"), port),
        CaptureConfig.defaults("node-t").withHeartbeatInterval(Duration.ofMillis(50)), true,
        new DemoWorkloadConfig(200, Duration.ofMillis(500), 1));
    long ordersId;
    long firstResolved;
    try (Broker broker = new Broker(config)) {
      broker.start();
      assertThat(broker.captureStatus().state()).isEqualTo(CaptureState.STREAMING);
      assertThat(broker.captureStatus().mode()).isEqualTo(DdlCaptureMode.EVENT_TRIGGER);
      assertThat(broker.captureStatus().slot()).isEqualTo("sluice_node_t");
      TableInfo orders = broker.schemaStore().tableByName("demo", "orders", 0);
      ordersId = orders.tableId();
      await().atMost(Duration.ofSeconds(60)).until(() -> rowCount(broker, ordersId) >= 100
          && broker.schemaStore().ddlEvents(ordersId, 0, Long.MAX_VALUE).stream()
              .anyMatch(e -> e.type() == DdlType.ADD_COLUMN));
      assertThat(broker.meterRegistry().scrape()).contains("sluice_capture_rows_total");
      firstResolved = broker.eventStore().resolvedTs();
    }
    try (Broker broker = new Broker(config)) {
      broker.start();
      assertThat(broker.eventStore().resolvedTs()).isGreaterThanOrEqualTo(firstResolved);
      long before = rowCount(broker, ordersId);
      await().atMost(Duration.ofSeconds(60)).until(() -> rowCount(broker, ordersId) > before + 50);
      assertThat(broker.captureStatus().state()).isEqualTo(CaptureState.STREAMING);
    }
  }

  private static long rowCount(Broker broker, long tableId) {
    long n = 0;
    try (RowScan scan = broker.eventStore().scan(TableSpan.wholeTable(tableId), 0, broker.eventStore().resolvedTs(),
        null)) {
      while (scan.next()) {
        n++;
      }
    }
    return n;
  }
}
