package dev.sluice.broker.capture;

/**
 * A snapshot of capture's state for the status API.
 *
 * <pre>{@code
 * CaptureStatus s = capture.status();
 * if (s.state() == CaptureState.RETRYING) log.warn(s.lastError());
 * }</pre>
 *
 * @param state        life-cycle state
 * @param mode         how DDL is captured
 * @param slot         replication slot name
 * @param publication  publication name
 * @param upstream     JDBC URL of the upstream (without credentials)
 * @param lastCommitTs commit ts (commit LSN) of the last durably stored transaction, 0 when none
 * @param confirmedLsn end LSN confirmed to PostgreSQL as flushed, 0 when none
 * @param resolvedTs   the event store's resolved ts
 * @param lagMs        now minus the commit time of the last stored transaction, -1 before the first
 * @param lastError    the last error's message, or {@code null}
 * @param retryCount   failed attempts since the last successful connection
 */
public record CaptureStatus(CaptureState state, DdlCaptureMode mode, String slot, String publication,
    String upstream, long lastCommitTs, long confirmedLsn, long resolvedTs, long lagMs, String lastError,
    int retryCount) {}
