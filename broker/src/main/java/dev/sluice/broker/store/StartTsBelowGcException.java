package dev.sluice.broker.store;

import dev.sluice.api.TableSpan;
import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.RequestRejectedException;

/**
 * A scan needs rows the event store has garbage-collected: {@code fromExclusive + 1 < gcTs}.
 *
 * <pre>{@code
 * catch (StartTsBelowGcException e) { reject(e.code(), e.getMessage()); }  // START_TS_BELOW_GC
 * }</pre>
 */
public final class StartTsBelowGcException extends RequestRejectedException {

  private final TableSpan span;
  private final long fromExclusive;
  private final long gcTs;

  public StartTsBelowGcException(TableSpan span, long fromExclusive, long gcTs) {
    super(ErrorCode.START_TS_BELOW_GC, "start ts " + fromExclusive + " of span " + span
        + " is below the event store's GC point " + gcTs + ": rows with commit ts below " + gcTs
        + " were deleted; start again from " + (gcTs - 1) + " or later");
    this.span = span;
    this.fromExclusive = fromExclusive;
    this.gcTs = gcTs;
  }

  public TableSpan span() {
    return span;
  }

  public long fromExclusive() {
    return fromExclusive;
  }

  public long gcTs() {
    return gcTs;
  }
}
