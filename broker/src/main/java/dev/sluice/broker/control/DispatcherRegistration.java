package dev.sluice.broker.control;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.TableSpan;
import dev.sluice.api.v1.RowOp;
import java.util.Set;

/**
 * What a dispatcher registered with: immutable, shared by the control and data planes.
 *
 * @param id             the dispatcher
 * @param changefeedId   the changefeed it belongs to ("" when none)
 * @param span           the table span it consumes
 * @param startTs        the start ts of the REGISTER (exclusive)
 * @param ignoredOps     row operations it does not want
 * @param syncPointIntervalS sync point interval in seconds, 0 = none
 * @param syncPointFirstTs   no sync point at or below this ts
 * @param fragments      whether large transactions may be sent in fragments
 * @param ddlInTxn       whether DDL goes at its place inside its transaction (feature ddl-in-txn), the
 *                       transaction's rows split around it; otherwise before all of them
 */
public record DispatcherRegistration(DispatcherId id, String changefeedId, TableSpan span, long startTs,
    Set<RowOp> ignoredOps, int syncPointIntervalS, long syncPointFirstTs, boolean fragments, boolean ddlInTxn,
    boolean copyText) {

  public DispatcherRegistration {
    ignoredOps = Set.copyOf(ignoredOps);
  }

  /** Whether a re-REGISTER with these parameters is the same registration (idempotent). */
  public boolean sameAs(DispatcherRegistration other) {
    return span.equals(other.span) && startTs == other.startTs && changefeedId.equals(other.changefeedId)
        && ignoredOps.equals(other.ignoredOps) && syncPointIntervalS == other.syncPointIntervalS
        && syncPointFirstTs == other.syncPointFirstTs;
  }
}
