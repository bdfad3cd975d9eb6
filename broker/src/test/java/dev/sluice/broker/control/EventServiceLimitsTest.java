package dev.sluice.broker.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

class EventServiceLimitsTest {

  @Test
  void aPatchChangesOnlyItsKeys() {
    EventServiceLimits base = EventServiceLimits.defaults();
    EventServiceLimits patched = base.patchedWith(new JsonObject().put("scanConcurrency", 3));
    assertThat(patched.scanConcurrency()).isEqualTo(3);
    assertThat(patched.withScanConcurrency(base.scanConcurrency())).isEqualTo(base);
    assertThat(EventServiceLimits.defaults().patchedWith(patched.toJson())).isEqualTo(patched);
  }

  @Test
  void anUnknownKeyIsRefusedByName() {
    assertThatThrownBy(() -> EventServiceLimits.defaults().patchedWith(new JsonObject().put("scanSpeed", 1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown limit 'scanSpeed'");
  }

  @Test
  void outOfRangeValuesNameTheKeyAndTheValue() {
    assertThatThrownBy(() -> EventServiceLimits.defaults().withScanConcurrency(0))
        .hasMessage("scanConcurrency must be in [1, 1024], got 0");
    assertThatThrownBy(() -> EventServiceLimits.defaults().withScanRateBytesPerSecond(10))
        .hasMessage("scanRateBytesPerSecond must be >= 1024, got 10");
    assertThatThrownBy(() -> EventServiceLimits.defaults().patchedWith(new JsonObject().put("maxDispatchers", -5)))
        .hasMessage("maxDispatchers must be >= 1, got -5");
    assertThatThrownBy(() -> EventServiceLimits.defaults().patchedWith(new JsonObject().put("scanConcurrency", "x")))
        .hasMessageContaining("limits must be numbers");
  }

  @Test
  void configRejectsAResolvedFlushSlowerThanTheProtocolAllows() {
    EventServiceConfig d = EventServiceConfig.defaults();
    assertThatThrownBy(() -> new EventServiceConfig(d.limits(), 2, d.maxMessageBytes(), java.time.Duration.ofMillis(60),
        d.idleResolvedInterval(), d.tickInterval(), d.tombstoneTtl(), d.detachedHoldTtl(), d.gcInterval(),
        d.gcRetention(), d.controlQueueMessages(), d.scanThreadNice(), d.connections()))
        .hasMessageContaining("resolvedFlushInterval must be <= 50 ms");
  }

  @Test
  void configRejectsAScanThreadNiceOutsideWhatTheOsAccepts() {
    assertThatThrownBy(() -> EventServiceConfig.defaults().withScanThreadNice(20))
        .hasMessageContaining("scanThreadNice must be in [0, 19], got 20");
    assertThatThrownBy(() -> EventServiceConfig.defaults().withScanThreadNice(-1))
        .hasMessageContaining("scanThreadNice must be in [0, 19], got -1");
  }

  @Test
  void connectionLimitsNameTheKeyThatIsWrong() {
    ConnectionLimits d = ConnectionLimits.defaults();
    assertThatThrownBy(() -> d.withMaxConnections(0)).hasMessageContaining("maxConnections must be >= 1, got 0");
    assertThatThrownBy(() -> d.withTimeouts(java.time.Duration.ofMillis(10), d.helloTimeout(), d.idleTimeout()))
        .hasMessageContaining("prefaceTimeout must be at least 300 ms, got PT0.01S");
    assertThatThrownBy(() -> d.withTimeouts(d.prefaceTimeout(), null, d.idleTimeout()))
        .hasMessageContaining("helloTimeout must be at least 300 ms");
    assertThatThrownBy(() -> d.withTimeouts(java.time.Duration.ofSeconds(30), d.helloTimeout(),
        java.time.Duration.ofSeconds(20))).hasMessageContaining("idleTimeout (PT20S) must be >= prefaceTimeout (PT30S)");
    assertThatThrownBy(() -> EventServiceConfig.defaults().withConnections(null))
        .hasMessageContaining("connections must be set");
  }
}
