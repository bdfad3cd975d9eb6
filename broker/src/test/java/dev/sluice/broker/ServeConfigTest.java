package dev.sluice.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.dispatcher.BrokerAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** What a node announces (GetTopology, /api/v1/members) for each combination of bind host and advertised addresses. */
class ServeConfigTest {

  private static BrokerAddress addr(String text) {
    return text.isEmpty() ? null : BrokerAddress.parse(text);
  }

  @ParameterizedTest(name = "bind {0}, advertise [{1}], advertise admin [{2}] -> {3} and {4}")
  @CsvSource(delimiter = '|', value = {
      "127.0.0.1 |                     |                 | 127.0.0.1:8300         | 127.0.0.1:8301",
      "10.0.0.5  |                     |                 | 10.0.0.5:8300          | 10.0.0.5:8301",
      "::1       |                     |                 | [::1]:8300             | [::1]:8301",
      "127.0.0.1 | broker-1.example:9 |                 | broker-1.example:9     | broker-1.example:8301",
      "0.0.0.0   | broker-1.example:9 |                 | broker-1.example:9     | broker-1.example:8301",
      "0.0.0.0   | broker-1.example:9 | admin.example:80 | broker-1.example:9     | admin.example:80",
      "127.0.0.1 |                     | admin.example:80 | 127.0.0.1:8300         | admin.example:80",
      "::        | [fd00::7]:18300     |                 | [fd00::7]:18300        | [fd00::7]:8301"})
  void announcesTheAdvertisedAddressesElseTheListeningOnes(String bind, String grpc, String admin, String wantGrpc,
      String wantAdmin) {
    ServeConfig c = ServeConfig.defaults()
        .withAdvertised(addr(grpc == null ? "" : grpc), addr(admin == null ? "" : admin)).withPorts(bind, 0, 0);
    assertThat(c.announcedGrpcAddress(8300)).isEqualTo(wantGrpc);
    assertThat(c.announcedAdminAddress(8301)).isEqualTo(wantAdmin);
  }

  @ParameterizedTest
  @ValueSource(strings = {"0.0.0.0", "::", "[::]", "0:0:0:0:0:0:0:0"})
  void aWildcardBindWithoutAnAdvertisedAddressIsRefusedSayingWhatToAdd(String wildcard) {
    assertThatThrownBy(() -> ServeConfig.defaults().withPorts(wildcard, 8300, 8301))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--bind " + wildcard + " listens on every interface")
        .hasMessageContaining("add --advertise-address <host>:<port>");
  }

  @Test
  void aWildcardCannotBeAdvertised() {
    assertThatThrownBy(() -> ServeConfig.defaults().withAdvertised(BrokerAddress.parse("0.0.0.0:8300"), null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--advertise-address 0.0.0.0:8300 is a wildcard");
    assertThatThrownBy(() -> ServeConfig.defaults().withAdvertised(null, BrokerAddress.parse("[::]:8301")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--advertise-admin-address [::]:8301 is a wildcard");
  }

  @Test
  void changingPortsOrTheEventServiceKeepsTheAdvertisedAddresses() {
    ServeConfig c = ServeConfig.defaults().withAdvertised(BrokerAddress.parse("b:1"), BrokerAddress.parse("a:2"))
        .withPorts("0.0.0.0", 0, 0).withEventService(ServeConfig.defaults().eventService());
    assertThat(c.advertisedGrpc()).isEqualTo(BrokerAddress.parse("b:1"));
    assertThat(c.advertisedAdmin()).isEqualTo(BrokerAddress.parse("a:2"));
  }
}
