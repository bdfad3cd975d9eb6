package dev.sluice.broker.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.dispatcher.BrokerAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The cluster settings' rules: the same bind/advertise rules as the gRPC address, timings Hazelcast takes. */
class ClusterConfigTest {

  static final List<BrokerAddress> JOIN = List.of(BrokerAddress.parse("10.0.0.1:5701"));

  @Test
  void standaloneIsTheDefaultAndAWildcardBindIsFineThereWithNothingToAnnounce() {
    assertThat(ClusterConfig.standalone().clustered()).isFalse();
    assertThat(ClusterConfig.standalone().withNetwork("0.0.0.0", 5701, null).clustered()).isFalse();
  }

  @Test
  void aWildcardBindInAClusterNeedsAnAdvertisedAddressAndSaysWhichFlag() {
    assertThatThrownBy(() -> ClusterConfig.standalone().withJoin(JOIN).withNetwork("0.0.0.0", 5701, null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--cluster-advertise-address")
        .hasMessageContaining("5701");
    assertThat(ClusterConfig.standalone().withJoin(JOIN).withNetwork("0.0.0.0", 5701,
        BrokerAddress.parse("node-1.example.com:15701")).announced()).hasToString("node-1.example.com:15701");
  }

  @Test
  void aWildcardCannotBeAdvertised() {
    assertThatThrownBy(() -> ClusterConfig.standalone().withJoin(JOIN).withNetwork("10.0.0.1", 5701,
        BrokerAddress.parse("0.0.0.0:5701"))).hasMessageContaining("wildcard");
  }

  @Test
  void theAnnouncedAddressDefaultsToTheBindHostAndPort() {
    assertThat(ClusterConfig.standalone().withJoin(JOIN).withNetwork("10.0.0.3", 5702, null).announced())
        .hasToString("10.0.0.3:5702");
  }

  @Test
  void badValuesAreRefusedNamingTheKeyAndValue() {
    ClusterConfig c = ClusterConfig.standalone();
    assertThatThrownBy(() -> c.withName("bad name")).hasMessageContaining("--cluster-name").hasMessageContaining("bad name");
    assertThatThrownBy(() -> c.withNetwork("127.0.0.1", 0, null)).hasMessageContaining("--cluster-port");
    assertThatThrownBy(() -> c.withOutboundPorts("33000-")).hasMessageContaining("--cluster-outbound-ports");
    assertThatThrownBy(() -> c.withTimings(Duration.ofSeconds(1), Duration.ofMillis(1500), Duration.ofSeconds(10),
        Duration.ofSeconds(30))).hasMessageContaining("whole seconds");
    assertThatThrownBy(() -> c.withTimings(Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(10),
        Duration.ofSeconds(5))).hasMessageContaining("cpMissingMemberAutoRemoval");
    assertThat(c.withOutboundPorts("33000-33010,33020").outboundPorts()).isEqualTo("33000-33010,33020");
  }
}
