package dev.sluice.broker.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.broker.ServeConfig;
import dev.sluice.broker.changefeed.ChangefeedConfig;
import dev.sluice.broker.control.ConnectionLimits;
import dev.sluice.broker.control.EventServiceConfig;
import dev.sluice.broker.testing.RawHttp2Client;
import dev.sluice.broker.testing.RunningBroker;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker whose gRPC port is saturated (more idle HTTP/2 connections than its limit, and idle sockets that
 * never speak) still answers its admin API, which runs on its own Vert.x: event loop, acceptor and workers.
 * The connections beyond the limit are closed at once and counted. Real broker, real PostgreSQL.
 */
class AdminUnderGrpcSaturationTest {

  private static final int LIMIT = 10;

  @TempDir Path dir;

  @Test
  void theAdminApiAnswersWhileTheGrpcPortIsFull() throws Exception {
    ServeConfig serve = ServeConfig.ephemeral().withEventService(EventServiceConfig.defaults()
        .withConnections(ConnectionLimits.defaults().withMaxConnections(LIMIT)));
    List<AutoCloseable> idle = new ArrayList<>();
    try (RunningBroker rb = RunningBroker.start(dir.resolve("broker"), ChangefeedConfig.defaults(), serve)) {
      int grpcPort = rb.broker().eventService().port();
      for (int i = 0; i < 3 * LIMIT; i++) {
        idle.add(RawHttp2Client.connect(grpcPort));   // preface and SETTINGS, then nothing
        idle.add(new Socket("127.0.0.1", grpcPort));   // not even the preface
      }
      var refused = rb.broker().meterRegistry().get("sluice.grpc.connections.refused").counter();
      await().atMost(Duration.ofSeconds(20)).until(() -> refused.count() >= 2 * LIMIT);
      assertThat(rb.broker().meterRegistry().get("sluice.grpc.connections.open").gauge().value()).isEqualTo(LIMIT);

      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      for (String path : List.of("/healthz", "/api/v1/changefeeds", "/api/v1/members")) {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(rb.adminUrl() + path))
            .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
      }
    } finally {
      for (AutoCloseable c : idle) {
        c.close();
      }
    }
  }
}
