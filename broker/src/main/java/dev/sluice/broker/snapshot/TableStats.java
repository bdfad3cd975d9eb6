package dev.sluice.broker.snapshot;

/**
 * How big a table is, as the upstream's statistics say.
 *
 * @param estimatedRows {@code pg_class.reltuples}, 0 when the table was never analyzed
 * @param blocks        its heap size in blocks now
 */
public record TableStats(long estimatedRows, long blocks) {}
