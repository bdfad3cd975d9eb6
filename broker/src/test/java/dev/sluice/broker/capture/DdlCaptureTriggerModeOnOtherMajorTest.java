package dev.sluice.broker.capture;

/** {@link DdlCaptureTriggerModeTest} (DDL capture through the event trigger) against the system's PostgreSQL of another major version. */
class DdlCaptureTriggerModeOnOtherMajorTest extends DdlCaptureTriggerModeTest implements OnOtherMajor {

  @Override
  public TestPostgres startPostgres() {
    return TestPostgres.startOtherMajor();
  }
}
