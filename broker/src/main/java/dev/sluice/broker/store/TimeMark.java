package dev.sluice.broker.store;

/** The upstream commit time of the transaction at {@code commitTs}, in microseconds since the epoch. */
public record TimeMark(long commitTs, long commitTimeMicros) {}
