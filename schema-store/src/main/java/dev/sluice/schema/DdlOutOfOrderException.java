package dev.sluice.schema;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.RequestRejectedException;

/** A DDL arrived with a commit ts not above the last applied one (or the resolved ts). */
public final class DdlOutOfOrderException extends RequestRejectedException {

  private final long commitTs;
  private final long lastTs;

  public DdlOutOfOrderException(long commitTs, long lastTs) {
    super(ErrorCode.OUT_OF_ORDER, "DDL at commit ts " + commitTs + " is not above the last applied ts "
        + lastTs + "; DDLs must be applied in strictly increasing commit-ts order");
    this.commitTs = commitTs;
    this.lastTs = lastTs;
  }

  /** A DDL of one apply placed before the one that precedes it in the list. */
  public DdlOutOfOrderException(long commitTs, long rowSeq, long previousTs, long previousRowSeq) {
    super(ErrorCode.OUT_OF_ORDER, "DDL at commit ts " + commitTs + " row seq " + rowSeq + " comes after the DDL at "
        + previousTs + " row seq " + previousRowSeq + " in one apply; DDLs go by commit ts, then row seq");
    this.commitTs = commitTs;
    this.lastTs = previousTs;
  }

  public long commitTs() {
    return commitTs;
  }

  /** The ts it had to exceed. */
  public long lastTs() {
    return lastTs;
  }
}
