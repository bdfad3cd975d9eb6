package dev.sluice.broker.capture;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link TypeRoundTripTest} (every captured type) against the system's PostgreSQL of another major version (15 on Debian 12). */
class TypeRoundTripOnOtherMajorTest extends TypeRoundTripTest {

  @Override
  TestPostgres startPostgres() {
    return TestPostgres.startOtherMajor();
  }

  /** The inherited checks are only worth repeating on a server that is not the embedded one. */
  @Test
  void theServerIsAnotherMajorThanTheEmbeddedOne() {
    try (TestPostgres other = startPostgres()) {
      assertThat(other.queryLong("SELECT current_setting('server_version_num')::int / 10000"))
          .isNotEqualTo(TestPostgres.EMBEDDED_MAJOR);
    }
  }
}
