package dev.sluice.broker.capture;

/** {@link TypeRoundTripTest} (every captured type) against the system's PostgreSQL of another major version (15 on Debian 12). */
class TypeRoundTripOnOtherMajorTest extends TypeRoundTripTest {

  @Override
  TestPostgres startPostgres() {
    return TestPostgres.startOtherMajor();
  }
}
