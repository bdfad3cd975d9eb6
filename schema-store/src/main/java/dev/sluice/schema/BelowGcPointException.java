package dev.sluice.schema;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.RequestRejectedException;

/** The requested ts is below the schema store's GC point; its history is gone. */
public final class BelowGcPointException extends RequestRejectedException {

  private final long ts;
  private final long gcTs;

  public BelowGcPointException(long ts, long gcTs) {
    super(ErrorCode.START_TS_BELOW_GC, "ts " + ts + " is below the schema GC point " + gcTs
        + "; start again from " + gcTs + " or later");
    this.ts = ts;
    this.gcTs = gcTs;
  }

  public long ts() {
    return ts;
  }

  public long gcTs() {
    return gcTs;
  }
}
