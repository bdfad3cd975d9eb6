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

  public long commitTs() {
    return commitTs;
  }

  /** The ts it had to exceed. */
  public long lastTs() {
    return lastTs;
  }
}
