package dev.sluice.broker.data;

import dev.sluice.broker.store.ScanCursor;
import java.util.List;

/**
 * What a {@link ScanTask} produced and where the dispatcher's stream stands after it.
 *
 * @param messages          encoded {@code BrokerMessage{event_batch}}s, in send order, numbered from the
 *                          task's first seq
 * @param eventCount        data events in them (seq advances by this)
 * @param creditBytes       serialized size of those data events: what the credit is charged
 * @param dmlCount          DML batches among them
 * @param ddlCount          DDL events among them
 * @param syncPointCount    sync points among them
 * @param progressTs        every event with commit ts {@code <=} this is in {@code events} or was sent before
 * @param cursor            where to resume inside the transaction after progressTs, or null
 * @param nextFragmentIndex fragment index of the next fragment of that transaction
 * @param tableInfoVersion  table info version in force after the last event
 * @param tableInfoVersionRowSeq its row seq
 * @param lastMarkTimeMicros commit time of the last time mark seen, -1 when none yet
 * @param bytesRead         bytes read from the stores (what the scan-rate limiter is charged)
 * @param reachedEnd        whether the scan covered the task's whole range (a Resolved may follow)
 */
record ScanResult(List<byte[]> messages, int eventCount, long creditBytes, int dmlCount, int ddlCount,
    int syncPointCount, long progressTs, ScanCursor cursor, int nextFragmentIndex,
    long tableInfoVersion, long tableInfoVersionRowSeq, long lastMarkTimeMicros, long bytesRead, boolean reachedEnd) {}
