package dev.sluice.broker.capture;

/** {@link IdleResolvedTsTest} (the idle watermark) against the system's PostgreSQL of another major version (15 on Debian 12). */
class IdleResolvedTsOnOtherMajorTest extends IdleResolvedTsTest {

  @Override
  TestPostgres startPostgres() {
    return TestPostgres.startOtherMajor();
  }
}
