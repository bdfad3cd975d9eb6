package dev.sluice.broker.capture;

/** {@link DdlCaptureTriggerModeTest} (DDL capture through the event trigger) against PostgreSQL 15 in a container. */
class DdlCaptureTriggerModeOnOtherMajorTest extends DdlCaptureTriggerModeTest implements OnOtherMajor {

  @Override
  public TestPostgres startPostgres() {
    return TestPostgres.startOtherMajor();
  }
}
