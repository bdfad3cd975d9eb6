package dev.sluice.broker.data;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.TableSpan;
import dev.sluice.api.v1.RowOp;
import dev.sluice.broker.control.CollectorLink;
import dev.sluice.broker.store.ScanCursor;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One bounded read for one dispatcher: events in {@code (fromExclusive, toInclusive]} of its span,
 * resuming inside the transaction at {@code cursor} when set, stopping at a transaction boundary (or
 * a fragment, when allowed) once {@code budgetBytes} are read. Immutable except the cancel flag,
 * which a reset sets while the task runs on a worker. Events are numbered from {@code firstSeq}: no other
 * event of the dispatcher is produced while its one scan runs.
 */
record ScanTask(DispatcherId id, CollectorLink link, long epoch, long firstSeq, TableSpan span, long fromExclusive, long toInclusive, ScanCursor cursor,
    int nextFragmentIndex, long tableInfoVersion, long tableInfoVersionRowSeq, long lastMarkTimeMicros,
    Set<RowOp> ignoredOps, int syncPointIntervalS, long syncPointFirstTs, boolean fragments, boolean ddlInTxn,
    long budgetBytes, int fragmentBytes, AtomicBoolean cancelled) {

  static ScanTask between(DispatcherStream s, long toInclusive, long budgetBytes, int fragmentBytes) {
    return new ScanTask(s.id(), s.link, s.epoch, s.seq + 1, s.registration.span(), s.progressTs, toInclusive, s.cursor,
        s.nextFragmentIndex, s.tableInfoVersion, s.tableInfoVersionRowSeq, s.lastMarkTimeMicros,
        s.registration.ignoredOps(), s.registration.syncPointIntervalS(), s.registration.syncPointFirstTs(),
        s.registration.fragments(), s.registration.ddlInTxn(), budgetBytes, fragmentBytes, new AtomicBoolean());
  }
}
