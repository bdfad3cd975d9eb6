package dev.sluice.broker.store;

import dev.sluice.api.TableSpan;
import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.FatalException;
import java.nio.file.Path;
import java.util.function.LongConsumer;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;

/**
 * A {@link RowScan} over the rows column family of one table. Reads each key into one reused array
 * (no allocation for rows outside the span) and fetches the value only when
 * {@link #rowChange()} is called.
 *
 * <pre>{@code
 * try (RowScan scan = store.scan(span, from, to, null)) {
 *   while (scan.next()) { send(scan.commitTs(), scan.rowChange()); }
 * }
 * }</pre>
 */
final class RocksRowScan implements RowScan {

  private final Path dataDir;
  private final RocksIterator iterator;
  private final ReadOptions readOptions;
  private final Slice upperBound;
  private final LongConsumer onClose;
  private final TableSpan span;
  private final long tableId;
  private final boolean wholeTable;
  private final long toInclusive;
  private final long cursorTs;
  private final long cursorNextSeq;
  private final byte[] key = new byte[EventKey.ROW_KEY_BYTES];

  private boolean cursorSought;
  private boolean positioned;
  private boolean done;
  private boolean closed;
  private long commitTs;
  private long rowSeq;
  private int keyHash;
  private byte[] value;
  private long rows;

  /** Takes ownership of the iterator, read options and bound; the iterator is already at the first key. */
  RocksRowScan(Path dataDir, RocksIterator iterator, ReadOptions readOptions, Slice upperBound, TableSpan span,
      long toInclusive, ScanCursor cursor, boolean empty, LongConsumer onClose) {
    this.dataDir = dataDir;
    this.iterator = iterator;
    this.readOptions = readOptions;
    this.upperBound = upperBound;
    this.span = span;
    this.tableId = span.tableId();
    this.wholeTable = span.isWholeTable();
    this.toInclusive = toInclusive;
    this.cursorTs = cursor == null ? -1 : cursor.commitTs();
    this.cursorNextSeq = cursor == null ? 0 : cursor.nextRowSeq();
    this.done = empty;
    this.onClose = onClose;
  }

  @Override
  public boolean next() {
    if (done) {
      return false;
    }
    if (closed) {
      throw new IllegalStateException("scan of " + span + " is closed");
    }
    if (positioned) {
      iterator.next();
    }
    positioned = true;
    value = null;
    while (iterator.isValid()) {
      int length = iterator.key(key);
      if (length != EventKey.ROW_KEY_BYTES) {
        throw new FatalException(ErrorCode.STORE_CORRUPT, "event store at " + dataDir + " holds a row key of "
            + length + " bytes in table " + tableId + " (expected " + EventKey.ROW_KEY_BYTES
            + "); the store is damaged: restore it or delete it and capture again");
      }
      long ts = EventKey.commitTs(key);
      if (EventKey.tableId(key) != tableId || ts > toInclusive) {
        break;
      }
      long seq = EventKey.rowSeq(key);
      if (ts == cursorTs && seq < cursorNextSeq) {
        skipToCursor();
        continue;
      }
      int hash = EventKey.keyHash(key);
      if (!wholeTable && !span.contains(hash)) {
        iterator.next();
        continue;
      }
      commitTs = ts;
      rowSeq = seq;
      keyHash = hash;
      rows++;
      return true;
    }
    finish();
    return false;
  }

  @Override
  public long tableId() {
    requireRow();
    return tableId;
  }

  @Override
  public long commitTs() {
    requireRow();
    return commitTs;
  }

  @Override
  public long rowSeq() {
    requireRow();
    return rowSeq;
  }

  @Override
  public int keyHash() {
    requireRow();
    return keyHash;
  }

  @Override
  public byte[] rowChange() {
    requireRow();
    if (value == null) {
      value = iterator.value();
    }
    return value;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    done = true;
    iterator.close();
    readOptions.close();
    if (upperBound != null) {
      upperBound.close();
    }
    onClose.accept(rows);
  }

  private void skipToCursor() {
    if (cursorSought) {
      iterator.next();
    } else {
      cursorSought = true; // one seek past the rows already delivered, instead of stepping over them
      iterator.seek(EventKey.rowSeek(tableId, cursorTs, cursorNextSeq));
    }
  }

  private void finish() {
    done = true;
    try {
      iterator.status();
    } catch (RocksDBException e) {
      throw new StoreUnavailableException(dataDir, "scan " + span + " up to ts " + toInclusive, e);
    }
  }

  private void requireRow() {
    if (!positioned || done) {
      throw new IllegalStateException("no current row: call next() first and only while it returns true");
    }
  }
}
