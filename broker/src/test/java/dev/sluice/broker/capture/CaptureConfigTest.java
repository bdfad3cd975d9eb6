package dev.sluice.broker.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Defaults and validation messages that name the key and the value. */
class CaptureConfigTest {

  @Test
  void defaultsNameTheSlotAfterTheNode() {
    CaptureConfig c = CaptureConfig.defaults("node-1");
    assertThat(c.slotName()).isEqualTo("sluice_node_1");
    assertThat(c.publicationName()).isEqualTo("sluice_pub");
    assertThat(c.heartbeatInterval()).isEqualTo(Duration.ofMillis(200));
    assertThat(c.installDdlTrigger()).isTrue();
    assertThat(CaptureConfig.defaultSlotName("Broker.EU-West")).isEqualTo("sluice_broker_eu_west");
  }

  @Test
  void invalidValuesAreRejectedNamingKeyAndValue() {
    CaptureConfig c = CaptureConfig.defaults("n");
    assertThatThrownBy(() -> c.withSlot("Bad-Slot", "sluice_pub")).hasMessageContaining("slotName")
        .hasMessageContaining("Bad-Slot");
    assertThatThrownBy(() -> c.withSlot("ok", "pub;drop")).hasMessageContaining("publicationName");
    assertThatThrownBy(() -> c.withHeartbeatInterval(Duration.ZERO)).hasMessageContaining("heartbeatInterval")
        .hasMessageContaining("PT0S");
    assertThatThrownBy(() -> c.withFragment(0, 1)).hasMessageContaining("fragmentRows must be > 0, got 0");
    assertThatThrownBy(() -> c.withMemoryCap(1 << 20, 1L << 30)).hasMessageContaining("memoryCapBytes (1048576)")
        .hasMessageContaining("groupCommitMaxBytes (1073741824)");
    assertThatThrownBy(() -> c.withRetryBackoff(Duration.ofSeconds(5), Duration.ofSeconds(1)))
        .hasMessageContaining("retryMaxBackoff (PT1S) must be >= retryInitialBackoff (PT5S)");
  }
}
