package dev.sluice.broker.capture;

/** {@link IdleResolvedTsTest} (the idle watermark) against PostgreSQL 15 in a container. */
class IdleResolvedTsOnOtherMajorTest extends IdleResolvedTsTest implements OnOtherMajor {

  @Override
  public TestPostgres startPostgres() {
    return TestPostgres.startOtherMajor();
  }
}
