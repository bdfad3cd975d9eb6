package dev.sluice.broker.snapshot;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.TableSpan;

/**
 * The snapshot one epoch of a dispatcher asked for.
 *
 * @param id           the dispatcher
 * @param epoch        the epoch it runs in (it ends with the epoch)
 * @param changefeedId the dispatcher's changefeed ("" when none): for views and meters
 * @param span         the span: rows outside its hash range are not delivered
 * @param from         where to start
 * @param copyText     the stream takes READ rows as COPY text (feature copy-text): a table with a key is read by
 *                     {@code COPY ... TO STDOUT} and its lines go out as they came
 */
public record SnapshotSpec(DispatcherId id, long epoch, String changefeedId, TableSpan span, SnapshotPosition from,
    boolean copyText) {

  /** A snapshot whose READ rows go out as RowChanges. */
  public SnapshotSpec(DispatcherId id, long epoch, String changefeedId, TableSpan span, SnapshotPosition from) {
    this(id, epoch, changefeedId, span, from, false);
  }
}
