package dev.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Ports handed to child brokers stay clear of the ports outgoing connections take, and are never handed out twice. */
class LoopbackPortsTest {

  @Test
  void portsAreDistinctAndBelowTheEphemeralRange() throws Exception {
    int ephemeralLow = Integer.parseInt(Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim()
        .split("\\s+")[0]);
    Set<Integer> ports = new HashSet<>();
    for (int i = 0; i < 300; i++) {
      ports.add(LoopbackPorts.free());
    }
    assertThat(ports).hasSize(300);
    if (ephemeralLow - 20_000 >= 1_000) {
      assertThat(ports).allMatch(p -> p >= 20_000 && p < ephemeralLow);
    }
  }
}
