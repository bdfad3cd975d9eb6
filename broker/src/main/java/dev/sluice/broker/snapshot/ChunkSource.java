package dev.sluice.broker.snapshot;

import dev.sluice.schema.TableInfo;

/**
 * A snapshot reader's connection to the upstream: it writes watermarks and reads chunks. One per reader
 * thread, used by that thread only. Failures are {@link dev.sluice.api.error.SluiceException}s with a
 * code: {@code TABLE_DROPPED} (the table is gone), {@code SCHEMA_UNAVAILABLE} (the table changed and the
 * schema store has not caught up yet: read again soon), {@code UPSTREAM_UNAVAILABLE} (retry with backoff),
 * {@code UPSTREAM_MISCONFIGURED} (the upstream refused the read, say no SELECT privilege: an operator acts).
 *
 * <pre>{@code
 * try (ChunkSource source = factory.open()) {
 *   source.emitWatermark(lowToken);
 *   SourceChunk chunk = source.read(new ChunkRead(table, position, 8192, 4 << 20, 0));
 *   source.emitWatermark(highToken);
 * }
 * }</pre>
 */
public interface ChunkSource extends AutoCloseable {

  /** Opens a source; the connection may be made lazily, at the first call. */
  @FunctionalInterface
  interface Factory {
    ChunkSource open();
  }

  /**
   * Commits {@code pg_logical_emit_message(true, 'sluice_snapshot', token)} in a transaction of its own;
   * returns once it committed.
   */
  void emitWatermark(String token);

  /** Reads one chunk in its own transaction; see {@link ChunkRead} for what it covers. */
  SourceChunk read(ChunkRead request);

  /** The table's estimated rows and its size in heap blocks now. */
  TableStats stats(TableInfo table);

  @Override
  void close();
}
