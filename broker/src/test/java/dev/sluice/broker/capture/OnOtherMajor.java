package dev.sluice.broker.capture;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Mixed into a capture test's subclass to run the inherited tests against PostgreSQL of another major
 * version, 15 in a container on its own network (image {@code it/docker/postgres}), and to check that the
 * server really is another major.
 *
 * <pre>{@code
 * class TypeRoundTripOnOtherMajorTest extends TypeRoundTripTest implements OnOtherMajor {
 *   @Override public TestPostgres startPostgres() { return TestPostgres.startOtherMajor(); }
 * }
 * }</pre>
 */
interface OnOtherMajor {

  /** The server the inherited tests start: {@link TestPostgres#startOtherMajor()}. */
  TestPostgres startPostgres();

  /** The inherited checks are only worth repeating on a server that is not the embedded one. */
  @Test
  default void theServerIsAnotherMajorThanTheEmbeddedOne() {
    try (TestPostgres other = startPostgres()) {
      assertThat(other.queryLong("SELECT current_setting('server_version_num')::int / 10000"))
          .isNotEqualTo(TestPostgres.EMBEDDED_MAJOR);
    }
  }
}
