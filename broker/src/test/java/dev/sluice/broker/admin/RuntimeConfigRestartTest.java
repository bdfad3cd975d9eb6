package dev.sluice.broker.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.broker.Broker;
import dev.sluice.broker.BrokerConfig;
import dev.sluice.broker.capture.CaptureConfig;
import dev.sluice.broker.capture.TestPostgres;
import dev.sluice.broker.cli.AdminClient;
import dev.sluice.broker.cli.AdminClient.Response;
import dev.sluice.broker.upstream.DemoWorkloadConfig;
import dev.sluice.broker.upstream.UpstreamConfig;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A limit changed through {@code PATCH /api/v1/config} is kept in the data directory and is in force
 * again after a restart, until the static value it overrode changes (real broker, real PostgreSQL).
 */
class RuntimeConfigRestartTest {

  private static final String KEY = "eventService.limits.maxDispatchers";

  @Test
  void aPatchedLimitSurvivesARestartUntilTheStaticValueChanges(@TempDir Path dir) {
    try (TestPostgres pg = TestPostgres.start()) {
      BrokerConfig config = new BrokerConfig("node-r", dir, UpstreamConfig.external(pg.jdbcUrl(), "postgres", null),
          CaptureConfig.defaults("node-r"), false, DemoWorkloadConfig.defaults());
      try (Broker b = new Broker(config)) {
        b.start();
        Response r = admin(b).send("PATCH", "/api/v1/config", new JsonObject().put(KEY, 1234));
        assertThat(r.status()).as(r.body()).isEqualTo(200);
      }
      try (Broker b = new Broker(config)) {
        b.start();
        assertThat(b.eventService().limits().maxDispatchers()).isEqualTo(1234);
        JsonObject entry = setting(b, KEY);
        assertThat(entry.getInteger("value")).isEqualTo(1234);
        assertThat(entry.getString("source")).isEqualTo("runtime");
        assertThat(entry.getJsonObject("static").getInteger("value")).isEqualTo(200_000);
      }
      // the operator now configures the limit: the new static value wins over the old runtime one
      BrokerConfig changed = config.withServe(config.serve().withEventService(config.serve().eventService()
          .withLimits(config.serve().eventService().limits().withMaxDispatchers(500))));
      try (Broker b = new Broker(changed)) {
        b.start();
        assertThat(b.eventService().limits().maxDispatchers()).isEqualTo(500);
        assertThat(setting(b, KEY).getString("source")).isEqualTo("api");
        assertThat(b.meterRegistry().get("sluice.config.runtime.overrides").gauge().value()).isZero();
      }
    }
  }

  private static AdminClient admin(Broker b) {
    return AdminClient.of("http://" + b.adminAddress(), Duration.ofSeconds(30));
  }

  private static JsonObject setting(Broker b, String key) {
    Response r = admin(b).send("GET", "/api/v1/config", null);
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    return r.json().getJsonObject("settings").getJsonObject(key);
  }
}
