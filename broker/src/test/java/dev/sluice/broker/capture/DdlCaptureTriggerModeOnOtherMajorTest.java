package dev.sluice.broker.capture;

/** {@link DdlCaptureTriggerModeTest} (DDL capture through the event trigger) against the system's PostgreSQL of another major version (15 on Debian 12). */
class DdlCaptureTriggerModeOnOtherMajorTest extends DdlCaptureTriggerModeTest {

  @Override
  TestPostgres startPostgres() {
    return TestPostgres.startOtherMajor();
  }
}
