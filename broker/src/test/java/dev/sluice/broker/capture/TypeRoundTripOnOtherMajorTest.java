package dev.sluice.broker.capture;

/** {@link TypeRoundTripTest} (every captured type) against PostgreSQL 15 in a container. */
class TypeRoundTripOnOtherMajorTest extends TypeRoundTripTest implements OnOtherMajor {

  @Override
  public TestPostgres startPostgres() {
    return TestPostgres.startOtherMajor();
  }
}
