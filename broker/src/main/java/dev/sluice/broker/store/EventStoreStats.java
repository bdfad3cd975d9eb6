package dev.sluice.broker.store;

/**
 * A point-in-time summary of the event store for the admin API and logs.
 *
 * <pre>{@code
 * EventStoreStats s = store.stats();
 * log.atInfo().addKeyValue("resolvedTs", s.resolvedTs()).addKeyValue("liveBytes", s.liveDataBytes()).log("store");
 * }</pre>
 *
 * @param resolvedTs       every transaction with commit ts {@code <=} this is whole in the store
 * @param gcTs             rows below this were garbage-collected
 * @param tables           tables that ever had a row stored
 * @param estimatedRows    RocksDB's estimate of the stored rows (deleted ranges may still count)
 * @param liveDataBytes    bytes of the live SST files of all column families
 * @param memtableBytes    bytes held by all memtables
 * @param openScans        scans not yet closed
 */
public record EventStoreStats(
    long resolvedTs,
    long gcTs,
    int tables,
    long estimatedRows,
    long liveDataBytes,
    long memtableBytes,
    int openScans) {}
