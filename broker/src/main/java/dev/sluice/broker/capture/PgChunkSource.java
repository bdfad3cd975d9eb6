package dev.sluice.broker.capture;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.SluiceException;
import dev.sluice.api.pgtext.CopyText;
import dev.sluice.api.v1.ColumnCodec;
import dev.sluice.api.v1.TextCodec;
import dev.sluice.api.v1.Value;
import dev.sluice.broker.snapshot.ChunkPlanner;
import dev.sluice.broker.snapshot.ChunkQuery;
import dev.sluice.broker.snapshot.ChunkRead;
import dev.sluice.broker.snapshot.ChunkSource;
import dev.sluice.broker.snapshot.RowIdentity;
import dev.sluice.broker.snapshot.SnapshotPosition;
import dev.sluice.broker.snapshot.SnapshotRow;
import dev.sluice.broker.snapshot.SnapshotWatermarks;
import dev.sluice.broker.snapshot.SourceChunk;
import dev.sluice.broker.snapshot.TableStats;
import dev.sluice.broker.upstream.UpstreamConfig;
import dev.sluice.schema.ColumnInfo;
import dev.sluice.schema.TableInfo;
import io.vertx.core.json.JsonArray;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyOut;

/**
 * A snapshot reader's PostgreSQL connection: writes watermarks ({@code pg_logical_emit_message}, one
 * autocommitted statement each) and reads chunks in a read-only transaction of their own, with a cursor
 * so a chunk that reaches its byte limit stops without reading further rows. Values come in the text format
 * (binary transfer off), which is each type's output function, what pgoutput sends, and are parsed by the
 * same code as captured rows ({@link PgTextValues}), over the types the catalog gives each column, so a READ
 * row is the row a captured INSERT of it would be. The connection is
 * opened at the first call and opened again after it broke. No lock is taken beyond the reads' own
 * ACCESS SHARE. One reader thread only.
 *
 * <pre>{@code
 * ChunkSource.Factory factory = PgChunkSource.factory(upstream);
 * }</pre>
 */
public final class PgChunkSource implements ChunkSource {

  /** pgoutput streams logical messages (the watermarks) from PostgreSQL 14 on. */
  static final int MIN_SERVER_VERSION = 140000;
  /** Rows per fetch of a table's first chunk, and at least; later fetches aim at a whole chunk's bytes. */
  private static final int FETCH_ROWS = 512;
  private static final int MAX_FETCH_ROWS = 65_536;
  /** A table never analyzed and at most this many blocks (8 MiB) is counted for its estimate. */
  private static final long EXACT_COUNT_BLOCKS = 1024;
  /** Tables whose rows averaged more than this in their last chunk are read by the cursor, not by COPY. */
  static final long MAX_COPY_ROW_BYTES = 4096;

  private final UpstreamConnector connector;
  private Connection connection;
  private PgTypes types;
  private final Map<Long, ColumnTypes> columnTypes = new HashMap<>();
  /** Average encoded bytes of a row of each table in its last chunk: sizes the next chunk's fetches. */
  private final Map<Long, Long> rowBytes = new HashMap<>();

  private record ColumnTypes(List<ColumnInfo> columns, PgType[] types, List<ColumnCodec> codecs) {}

  private PgChunkSource(UpstreamConnector connector) {
    this.connector = connector;
  }

  /** Sources for the snapshot readers of a broker capturing {@code upstream}. */
  public static ChunkSource.Factory factory(UpstreamConfig upstream) {
    UpstreamConnector connector = new UpstreamConnector(upstream);
    return () -> new PgChunkSource(connector);
  }

  @Override
  public void emitWatermark(String token) {
    try {
      Connection c = connection();
      c.setAutoCommit(true);
      try (PreparedStatement ps = c.prepareStatement("SELECT pg_catalog.pg_logical_emit_message(true, '"
          + SnapshotWatermarks.PREFIX + "', ?)")) {
        ps.setString(1, token);
        ps.execute();
      }
    } catch (SQLException e) {
      throw failed(e, "writing a snapshot watermark", null);
    }
  }

  /**
   * {@code pg_class.reltuples}, or, for a table never analyzed or vacuumed (reltuples -1), its count when it
   * is small and the planner's estimate of a full scan (from its size) when it is not.
   */
  @Override
  public TableStats stats(TableInfo table) {
    try (PreparedStatement ps = connection().prepareStatement("SELECT c.reltuples::int8,"
        + " pg_catalog.pg_relation_size(c.oid) / pg_catalog.current_setting('block_size')::int8"
        + " FROM pg_catalog.pg_class c WHERE c.oid = ?")) {
      ps.setLong(1, table.tableId());
      long rows;
      long blocks;
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw gone(table);
        }
        rows = rs.getLong(1);
        blocks = rs.getLong(2);
      }
      if (rows < 0) {   // never analyzed: small tables are counted, others estimated by the planner
        rows = blocks <= EXACT_COUNT_BLOCKS ? count(table) : plannedRows(table);
      }
      return new TableStats(Math.max(0, rows), blocks);
    } catch (SQLException e) {
      throw failed(e, "reading the size of " + table.qualifiedName(), table);
    } finally {
      endTransaction();
    }
  }

  private long count(TableInfo table) throws SQLException {
    try (Statement s = connection().createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM " + ChunkPlanner.ownRows(table))) {
      return rs.next() ? rs.getLong(1) : 0;
    }
  }

  private long plannedRows(TableInfo table) throws SQLException {
    String sql = "EXPLAIN (FORMAT JSON) SELECT 1 FROM " + ChunkPlanner.ownRows(table);
    try (Statement s = connection().createStatement(); ResultSet rs = s.executeQuery(sql)) {
      if (!rs.next()) {
        return 0;
      }
      JsonArray plan = new JsonArray(rs.getString(1));
      return plan.getJsonObject(0).getJsonObject("Plan").getLong("Plan Rows", 0L);
    }
  }

  @Override
  public SourceChunk read(ChunkRead r) {
    TableInfo table = r.table();
    boolean keyless = table.primaryKey().isEmpty();
    long fromBlock = r.from().nextBlock();
    if (keyless && fromBlock >= r.endBlock()) {
      return new SourceChunk(List.of(), r.from(), true, 0);
    }
    long toBlock = keyless ? Math.min(r.endBlock(), fromBlock + r.blocksPerChunk()) : 0;
    ChunkQuery q;
    try {
      q = keyless ? ChunkPlanner.blocks(table, fromBlock, toBlock)
          : ChunkPlanner.keyed(table, r.from().afterKey(), r.maxRows());
    } catch (IllegalArgumentException e) {   // a resume key that no longer fits the table's key
      throw SluiceException.of(ErrorCode.INVALID_REQUEST, "the snapshot of " + table.qualifiedName()
          + " cannot continue from its position: " + e.getMessage() + "; start it again from the beginning", e);
    }
    int[] keys = keyIndexes(table);
    if (!keyless && r.copyText() && byCopy(table, r)) {
      return readByCopy(r, table, keys);
    }
    try {
      Connection c = connection();
      PgType[] columns = typesOf(table);
      c.setAutoCommit(false);
      c.setReadOnly(true);
      List<SnapshotRow> rows = new ArrayList<>();
      long bytes = 0;
      boolean cut = false;
      long nextBlock = toBlock;
      long currentBlock = -1;
      try (PreparedStatement ps = c.prepareStatement(q.sql())) {
        ps.setFetchSize(fetchRows(r, keyless));
        for (int i = 0; i < q.parameters().size(); i++) {
          ps.setObject(i + 1, q.parameters().get(i), Types.OTHER);
        }
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            if (keyless) {
              long block = block(rs.getString(q.ctidColumn()));
              if (bytes >= r.maxBytes() && block != currentBlock) {
                nextBlock = block;   // a block is read whole or not at all
                cut = true;
                break;
              }
              currentBlock = block;
            }
            SnapshotRow row = row(rs, columns, keys, keyless);
            rows.add(row);
            bytes += row.bytes();
            if (!keyless && bytes >= r.maxBytes()) {
              cut = rows.size() < r.maxRows();
              break;
            }
          }
        }
      }
      c.commit();
      if (!rows.isEmpty()) {
        rowBytes.put(table.tableId(), Math.max(1, bytes / rows.size()));
      }
      if (keyless) {
        return new SourceChunk(rows, new SnapshotPosition(List.of(), nextBlock), !cut && nextBlock >= r.endBlock(),
            bytes);
      }
      List<Value> lastKey = rows.isEmpty() ? r.from().afterKey() : keyOf(rows.get(rows.size() - 1), keys);
      boolean exhausted = !cut && rows.size() < r.maxRows();
      return new SourceChunk(rows, new SnapshotPosition(lastKey, 0), exhausted, bytes);
    } catch (SQLException e) {
      throw failed(e, "reading a snapshot chunk of " + table.qualifiedName(), table);
    } finally {
      endTransaction();
    }
  }

  /**
   * Whether a chunk of a keyed table goes by COPY: when its rows were small in the table's last chunk (up to
   * {@link #MAX_COPY_ROW_BYTES}), so that a chunk sized by that average stays near its byte limit; a table's first
   * chunk, and tables of wide (TOASTed) rows, go by the cursor, which stops at the byte limit row by row.
   */
  private boolean byCopy(TableInfo table, ChunkRead r) {
    Long avg = rowBytes.get(table.tableId());
    return avg != null && avg <= MAX_COPY_ROW_BYTES && avg <= r.maxBytes();
  }

  /**
   * A chunk of a keyed table as COPY text lines: {@code COPY (SELECT ... LIMIT n) TO STDOUT} in the read's own
   * transaction, n the rows that fill the byte limit at the table's average row size (at most maxRows). Only the
   * key columns of each line are parsed, for its identity and key hash; the rest of the line goes out as it came.
   * Lines past the byte limit are read and dropped (the chunk is a prefix in key order either way), so the
   * memory a chunk holds stays near its limit if the average was off.
   */
  private SourceChunk readByCopy(ChunkRead r, TableInfo table, int[] keys) {
    long avg = rowBytes.get(table.tableId());
    int limit = (int) Math.max(1, Math.min(r.maxRows(), r.maxBytes() / Math.max(1, avg) + 1));
    try {
      Connection c = connection();
      typesOf(table);
      List<ColumnCodec> codecs = columnTypes.get(table.tableId()).codecs();
      ColumnCodec[] keyCodecs = new ColumnCodec[keys.length];
      for (int k = 0; k < keys.length; k++) {
        keyCodecs[k] = codecs.get(keys[k]);
      }
      c.setAutoCommit(false);
      c.setReadOnly(true);
      List<SnapshotRow> rows = new ArrayList<>(limit);
      List<Value> lastKey = r.from().afterKey();
      long bytes = 0;
      long returned = 0;
      boolean cut = false;
      CopyOut out = c.unwrap(PGConnection.class).getCopyAPI()
          .copyOut(ChunkPlanner.keyedCopy(table, r.from().afterKey(), limit));
      // the usual key, one integer column: its digits make the identity, no Value built per row
      boolean oneInteger = keys.length == 1 && keyCodecs[0].getCodec() == TextCodec.TEXT_CODEC_INT;
      byte[] line;
      byte[] last = null;
      while ((line = out.readFromCopy()) != null) {
        returned++;
        if (cut) {
          continue;   // past the byte limit: read to the end of the COPY, kept nowhere
        }
        RowIdentity id = null;
        if (oneInteger) {
          long k = CopyText.plainLong(line, 0, line.length - 1, keys[0], Long.MIN_VALUE);
          id = k == Long.MIN_VALUE ? null : RowIdentity.ofInt64(k);
        }
        if (id == null) {
          id = RowIdentity.of(key(line, keys, keyCodecs));
        }
        SnapshotRow row = SnapshotRow.line(id, id.keyHash(), line, codecs);
        last = line;
        rows.add(row);
        bytes += row.bytes();
        if (bytes >= r.maxBytes()) {
          cut = true;
        }
      }
      c.commit();
      if (!rows.isEmpty()) {
        rowBytes.put(table.tableId(), Math.max(1, bytes / rows.size()));
      }
      if (last != null) {
        lastKey = key(last, keys, keyCodecs);
      }
      boolean exhausted = returned < limit && rows.size() == returned;
      return new SourceChunk(rows, new SnapshotPosition(lastKey, 0), exhausted, bytes);
    } catch (SQLException e) {
      throw failed(e, "reading a snapshot chunk of " + table.qualifiedName(), table);
    } finally {
      endTransaction();
    }
  }

  /**
   * Rows per round trip of a chunk's cursor: a whole chunk's bytes (at the table's last average row size) in
   * one fetch, so a chunk of small rows is one round trip rather than sixteen, while a chunk of wide rows still
   * stops at its byte limit within a fetch of them. The driver holds a fetch's raw rows, about a chunk's bytes.
   */
  private int fetchRows(ChunkRead r, boolean keyless) {
    Long avg = rowBytes.get(r.table().tableId());
    long rows = avg == null ? FETCH_ROWS : r.maxBytes() / avg;
    if (!keyless) {
      rows = Math.min(rows, r.maxRows() + 1L);   // one more: the fetch also brings the end of the rows
    }
    return (int) Math.max(FETCH_ROWS, Math.min(rows, MAX_FETCH_ROWS));
  }

  private SnapshotRow row(ResultSet rs, PgType[] columns, int[] keys, boolean keyless) throws SQLException {
    List<Value> values = new ArrayList<>(columns.length);
    for (int i = 0; i < columns.length; i++) {
      String text = rs.getString(i + 1);   // the type's output: the text format, binary transfer is off
      values.add(text == null ? PgTextValues.NULL : parse(columns[i], text));
    }
    List<Value> identity = keyless ? values : new ArrayList<>(keys.length);
    if (!keyless) {
      for (int k : keys) {
        identity.add(values.get(k));
      }
    }
    RowIdentity id = RowIdentity.of(identity);
    // encoded here, on the reader thread: the data plane copies the bytes into the READ row
    return SnapshotRow.encoded(id, keyless ? 0 : id.keyHash(), values);
  }

  /** The key columns of a COPY line (text a codec refuses is kept as text, as capture keeps it). */
  private static List<Value> key(byte[] line, int[] keys, ColumnCodec[] keyCodecs) {
    List<Value> key = new ArrayList<>(keys.length);
    for (int k = 0; k < keys.length; k++) {
      key.add(CopyText.value(line, 0, line.length - 1, keys[k], keyCodecs[k]));
    }
    return key;
  }

  private static Value parse(PgType type, String text) {
    try {
      return PgTextValues.parse(type, text);
    } catch (IllegalArgumentException e) {   // as capture does: kept as text, never a failure
      return Value.newBuilder().setStringValue(text).build();
    }
  }

  private static List<Value> keyOf(SnapshotRow row, int[] keys) {
    List<Value> key = new ArrayList<>(keys.length);
    for (int k : keys) {
      key.add(row.values().get(k));
    }
    return key;
  }

  private static int[] keyIndexes(TableInfo table) {
    int[] keys = new int[table.primaryKey().size()];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = table.columnIndex(table.primaryKey().get(i));
    }
    return keys;
  }

  /** The block of a ctid's text form "(block,offset)". */
  static long block(String ctid) {
    int comma = ctid.indexOf(',');
    return Long.parseLong(ctid.substring(1, comma));
  }

  /** The catalog type of each column of {@code table}, by name; cached while its columns stay the same. */
  private PgType[] typesOf(TableInfo table) throws SQLException {
    ColumnTypes cached = columnTypes.get(table.tableId());
    if (cached != null && cached.columns().equals(table.columns())) {
      return cached.types();
    }
    Map<String, Integer> oids = new HashMap<>();
    try (PreparedStatement ps = connection().prepareStatement("SELECT a.attname, a.atttypid::int4"
        + " FROM pg_catalog.pg_attribute a WHERE a.attrelid = ? AND a.attnum > 0 AND NOT a.attisdropped")) {
      ps.setLong(1, table.tableId());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          oids.put(rs.getString(1), rs.getInt(2));
        }
      }
    }
    if (oids.isEmpty()) {
      throw gone(table);
    }
    PgType[] out = new PgType[table.columns().size()];
    for (int i = 0; i < out.length; i++) {
      ColumnInfo col = table.columns().get(i);
      Integer oid = oids.get(col.name());
      if (oid == null) {
        throw SluiceException.of(ErrorCode.SCHEMA_UNAVAILABLE, "column " + col.name() + " of "
            + table.qualifiedName() + " is not in the upstream's catalog: the table changed and capture has not"
            + " caught up yet");
      }
      out[i] = types.resolve(oid);
    }
    List<ColumnCodec> codecs = new ArrayList<>(out.length);
    for (PgType t : out) {
      codecs.add(t.columnCodec());
    }
    columnTypes.put(table.tableId(), new ColumnTypes(table.columns(), out, List.copyOf(codecs)));
    return out;
  }

  private Connection connection() throws SQLException {
    if (connection == null || connection.isClosed()) {
      Connection c = connector.openTextResults("sluice-snapshot");
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW server_version_num")) {
        rs.next();
        int version = Integer.parseInt(rs.getString(1).trim());
        if (version < MIN_SERVER_VERSION) {
          c.close();
          throw new UpstreamMisconfiguredException("server_version", "snapshots need PostgreSQL 14 or newer, where"
              + " pgoutput streams the logical messages snapshot watermarks are; " + connector.displayUrl() + " runs "
              + version / 10000 + "; changes are captured, but existing rows cannot be read");
        }
        s.execute("SET search_path = pg_catalog, pg_temp");
        // a watermark's commit flushes the WAL at once: the walsender streams only flushed WAL, so with the
        // server's synchronous_commit off it would wait for the WAL writer (wal_writer_delay, 200 ms)
        s.execute("SET synchronous_commit = on");
      }
      connection = c;
      types = new PgTypes(new PgCatalog(c));
      columnTypes.clear();
    }
    return connection;
  }

  private void endTransaction() {
    try {
      if (connection != null && !connection.isClosed() && !connection.getAutoCommit()) {
        connection.rollback();
        connection.setAutoCommit(true);
        connection.setReadOnly(false);
      }
    } catch (SQLException e) {
      closeQuietly();
    }
  }

  private SluiceException gone(TableInfo table) {
    return SluiceException.of(ErrorCode.TABLE_DROPPED, "table " + table.qualifiedName() + " (oid " + table.tableId()
        + ") no longer exists upstream");
  }

  /** The typed error for a failed statement; a broken connection is dropped so the next call opens another. */
  private SluiceException failed(SQLException e, String doing, TableInfo table) {
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    endTransaction();   // the failed statement aborted it
    if (table != null && (state.equals("42P01") || state.equals("3F000"))) {   // undefined table / schema
      return exists(table) ? SluiceException.of(ErrorCode.SCHEMA_UNAVAILABLE, table.qualifiedName() + " was renamed"
          + " upstream and capture has not caught up yet: " + e.getMessage(), e) : gone(table);
    }
    if (state.equals("42703")) {   // undefined column: a column dropped or renamed, not captured yet
      return SluiceException.of(ErrorCode.SCHEMA_UNAVAILABLE, doing + ": " + e.getMessage()
          + " (the table changed and capture has not caught up yet)", e);
    }
    if (state.startsWith("22")) {   // data exception: a resume key the column type does not accept
      return SluiceException.of(ErrorCode.INVALID_REQUEST, doing + " failed: " + e.getMessage()
          + "; the snapshot's resume key does not fit the key columns (start it again from the beginning)", e);
    }
    if (state.startsWith("08") || state.equals("57P01") || state.isEmpty()) {
      closeQuietly();
    }
    return UpstreamChecks.classify(e, connector.displayUrl(), doing);
  }

  private boolean exists(TableInfo table) {
    try (PreparedStatement ps = connection().prepareStatement("SELECT 1 FROM pg_catalog.pg_class WHERE oid = ?")) {
      ps.setLong(1, table.tableId());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    } catch (SQLException e) {
      return true;   // unknown: read again later rather than call it dropped
    } finally {
      endTransaction();
    }
  }

  private void closeQuietly() {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException ignored) {
        // broken already
      }
      connection = null;
    }
  }

  @Override
  public void close() {
    closeQuietly();
  }
}
