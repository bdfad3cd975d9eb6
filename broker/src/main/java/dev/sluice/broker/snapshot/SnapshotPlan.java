package dev.sluice.broker.snapshot;

/**
 * The snapshot a RESET asked for, as the control plane checked it.
 *
 * @param from    where to start
 * @param fromLog true when the table was created after the epoch's start ts: the log holds every row it
 *                ever had, so there is nothing to read and the snapshot is complete at once
 */
public record SnapshotPlan(SnapshotPosition from, boolean fromLog) {}
