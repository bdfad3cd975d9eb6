package dev.sluice.dispatcher.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** The choice among the collations a server has; the MariaDB test sees the real server's. */
class KeyCollationTest {

  @Test
  void prefersMariaDbsNoPadBinaryThenMySqls0900BinaryThenThePaddedBinary() {
    assertThat(KeyCollation.choose(Set.of("utf8mb4_nopad_bin", "utf8mb4_0900_bin"))).isEqualTo("utf8mb4_nopad_bin");
    assertThat(KeyCollation.choose(Set.of("utf8mb4_0900_bin"))).isEqualTo("utf8mb4_0900_bin");
    assertThat(KeyCollation.choose(Set.of())).isEqualTo("utf8mb4_bin");
  }
}
