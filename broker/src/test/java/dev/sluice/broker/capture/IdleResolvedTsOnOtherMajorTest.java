package dev.sluice.broker.capture;

/** {@link IdleResolvedTsTest} (the idle watermark) against the system's PostgreSQL of another major version. */
class IdleResolvedTsOnOtherMajorTest extends IdleResolvedTsTest implements OnOtherMajor {

  @Override
  public TestPostgres startPostgres() {
    return TestPostgres.startOtherMajor();
  }
}
