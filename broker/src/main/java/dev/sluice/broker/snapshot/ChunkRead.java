package dev.sluice.broker.snapshot;

import dev.sluice.schema.TableInfo;

/**
 * One chunk to read. A table with a key: the rows after {@code from.afterKey()} in key order, at most
 * {@code maxRows}, stopping after the row that makes the chunk reach {@code maxBytes}. A table without
 * a key: the rows of heap blocks from {@code from.nextBlock()}, block by block, stopping at a block
 * boundary once {@code maxBytes} are reached, at {@code blocksPerChunk} blocks, or at {@code endBlock}.
 *
 * @param table          the table as the schema store knows it: the columns read, in this order
 * @param from           where the chunk starts
 * @param maxRows        row limit (keyed tables)
 * @param maxBytes       byte limit, checked after each row (keyed) or block (keyless)
 * @param blocksPerChunk block limit (keyless tables)
 * @param endBlock       keyless tables: the table's size in blocks when the snapshot began; blocks from
 *                       here on hold only rows written since, which the stream carries
 * @param copyText       a table with a key may be read as COPY text lines ({@link SnapshotRow#line}), which go out
 *                       as they came (the stream negotiated copy-text)
 */
public record ChunkRead(TableInfo table, SnapshotPosition from, int maxRows, long maxBytes, long blocksPerChunk,
    long endBlock, boolean copyText) {

  /** A read whose rows are parsed into Values. */
  public ChunkRead(TableInfo table, SnapshotPosition from, int maxRows, long maxBytes, long blocksPerChunk,
      long endBlock) {
    this(table, from, maxRows, maxBytes, blocksPerChunk, endBlock, false);
  }

  public ChunkRead {
    if (maxRows < 1 || maxBytes < 1 || blocksPerChunk < 1) {
      throw new IllegalArgumentException("chunk limits must be positive: rows " + maxRows + ", bytes " + maxBytes
          + ", blocks " + blocksPerChunk);
    }
  }

  boolean keyless() {
    return table.primaryKey().isEmpty();
  }
}
