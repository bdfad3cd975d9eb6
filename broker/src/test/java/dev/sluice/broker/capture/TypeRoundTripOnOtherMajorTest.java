package dev.sluice.broker.capture;

/** {@link TypeRoundTripTest} (every captured type) against the system's PostgreSQL of another major version. */
class TypeRoundTripOnOtherMajorTest extends TypeRoundTripTest implements OnOtherMajor {

  @Override
  public TestPostgres startPostgres() {
    return TestPostgres.startOtherMajor();
  }
}
