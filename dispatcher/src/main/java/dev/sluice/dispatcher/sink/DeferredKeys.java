package dev.sluice.dispatcher.sink;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.sluice.api.v1.RowChange;
import dev.sluice.api.v1.RowOp;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.RowChangeView;
import dev.sluice.dispatcher.RowImage;
import dev.sluice.dispatcher.Transaction;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL tables whose primary key a {@link JdbcUpsertSink} dropped while it loads their snapshot, and
 * their log: a snapshot into an empty table is COPYed into the bare table and the key's index is built once after
 * the last chunk, as {@code pg_dump | psql} does (COPY into the indexed table ran at about 0.7 of that rate).
 *
 * <p><b>Entering</b>, in the target transaction of the table's first snapshot chunk ({@link #mayDefer}): the
 * table has a key, the sink applied no READ row of this snapshot yet, the target table is empty, its PRIMARY KEY
 * constraint is on exactly the key columns, not deferrable, and its index is neither the replica identity nor the
 * cluster index, and no foreign key references it. The probe and the {@code DROP CONSTRAINT} run under a
 * savepoint; anything else, or any error, keeps the key (the ordinary path, logged at INFO with the reason). The statement that adds
 * the key back goes into the table's progress ({@link SinkCheckpoint.TableProgress#deferredKey()}, column
 * {@code deferred_key} of {@code sluice_table_checkpoint}) with the rows, so a sink reopened mid-snapshot goes on
 * deferring; the table info the logged rows follow is the log's first entry.
 *
 * <p><b>While deferred</b> whole READ rows are plain-inserted (COPY straight in: no unique index to upsert on), and
 * every other change of the table (INSERT, UPDATE, DELETE, a READ row with an unavailable value) is appended in
 * stream order to {@value JdbcSinkConfig#DEFERRED_ROWS_TABLE} in the sink's home schema, as a {@link RowChange},
 * in JDBC batches of the same target transaction (exactly once, like the rows).
 *
 * <p><b>Finishing</b> ({@link #finish}) adds the key back (the index build), replays the log in order through the
 * sink's ordinary upserts and deletes by key, and deletes it, all in one target transaction: with the chunk that
 * read the table to its end, when the snapshot stops being the one that began the deferral (cancelled, failed,
 * done, paused, another asked for), before a DDL of the table, when its stream ends, or on request
 * ({@link JdbcUpsertSink#finishDeferredKeys()}). A key that cannot be added back (duplicate keys) stops the sink
 * with the statement in the error: a table is never left without its key silently.
 *
 * <p><b>Why replaying the log after the load is exact.</b> While deferred the target table holds only READ rows,
 * each key at most once: a snapshot reads a key once, and the sink applies each row once. The log holds every
 * other change of the table since the deferral began, in commit order, each with its whole row image (an UPDATE's
 * unavailable TOAST value keeps the target's value when replayed, as a live change does). A READ row of key k in a
 * chunk at ts T is k's row as of T: it is delivered only when no change of k came in the chunk's watermark window,
 * so it reflects every change of k up to T. Replaying k's logged changes in order over it ends at k's last change,
 * which is the source's row (or no row, after a DELETE): a change older than the READ row rewrites it with a row
 * that every later change, logged too, brings up to date, and a key without a logged change keeps its READ row,
 * which is current. So the table ends as the ordinary path would have left it.
 *
 * <p>One connection (not autocommitted), one applier thread; {@link #rolledBack()} after every rollback.
 *
 * <pre>{@code
 * DeferredKeys deferred = new DeferredKeys(connection, writer, copyLoader, "cf1",
 *     "\"public\".\"sluice_deferred_rows\"", 500);
 * String addBack = DeferredKeys.mayDefer(chunk, snapshot) ? deferred.defer(target, chunk) : null;
 * if (addBack != null) {
 *   deferred.write(target, chunk, Checkpoint.at(0), images);   // and the changes of the table after it
 *   deferred.finish(chunk.tableId(), chunk.tableName(), addBack, false, sinkWritePath);
 * }
 * }</pre>
 */
final class DeferredKeys {

  private static final Logger LOG = LoggerFactory.getLogger(DeferredKeys.class);
  /** Logged changes read per query when the log is replayed. */
  static final int REPLAY_PAGE_ROWS = 1000;
  private static final String UNDEFINED_TABLE = "42P01";

  /** Replays one logged change through the sink's ordinary write path (upserts and deletes by key). */
  @FunctionalInterface
  interface Replay {
    void write(TableInfo info, long commitTs, RowChangeView row) throws SQLException;
  }

  private final Connection connection;
  private final RowWriter writer;
  private final PgCopyLoader copyLoader;
  private final String changefeedId;
  /** The log table, quoted. */
  private final String log;
  private final int batchSize;
  /** Whether this connection made sure the log table exists. */
  private boolean logReady;
  private PreparedStatement append;
  private int pendingRows;
  /** Table id to the table info its logged rows follow, as read or written on this connection; a cache. */
  private final Map<Long, TableInfo> infos = new HashMap<>();

  DeferredKeys(Connection connection, RowWriter writer, PgCopyLoader copyLoader, String changefeedId, String log,
      int batchSize) {
    this.connection = connection;
    this.writer = writer;
    this.copyLoader = copyLoader;
    this.changefeedId = changefeedId;
    this.log = log;
    this.batchSize = batchSize;
  }

  /**
   * Whether {@code t} may begin a deferral, as far as the stream tells (the target is probed by {@link #defer}):
   * the table has a key, {@code t} is a chunk's READ rows (enough of them to be worth two DDLs), and the snapshot
   * it belongs to ({@code snapshot}, as recorded before {@code t}) applied no READ row yet, runs, and is the one
   * {@code t} belongs to (a chunk at or below its {@code sinceTs} is of a snapshot it replaced).
   */
  static boolean mayDefer(Transaction t, TableSnapshot snapshot) {
    TableSnapshot.State s = snapshot.state();
    if (t.tableInfo().getPrimaryKeyCount() == 0 || t.rows().size() < PgCopyLoader.MIN_ROWS || snapshot.rows() > 0
        || t.commitTs() <= snapshot.sinceTs()
        || !(s == TableSnapshot.State.NONE || s == TableSnapshot.State.RUNNING || s == TableSnapshot.State.FAILED)) {
      return false;
    }
    for (RowChangeView row : t.rows()) {
      if (row.op() != RowOp.ROW_OP_READ) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether recording {@code next} over {@code current} ends a deferral: anything but the same snapshot running on
   * (same {@code sinceTs}, rows not counted again from 0). A paused snapshot may stay paused for long, and the log
   * holds the table's changes back from the target all that while, so a pause ends it too.
   */
  static boolean ends(TableSnapshot current, TableSnapshot next) {
    return next.state() != TableSnapshot.State.RUNNING || next.sinceTs() != current.sinceTs()
        || next.rows() < current.rows();
  }

  /**
   * Drops the primary key of {@code target} (quoted) when {@code chunk}'s table may load without it: empty, a
   * PRIMARY KEY on exactly the key columns, nothing referencing it. Returns the statement that adds the key back,
   * or null when the key stays (logged at INFO with the reason; nothing of the probe is kept). Rows batched for the
   * table before must be executed (the probe sees them).
   */
  String defer(String target, Transaction chunk) throws SQLException {
    TableInfo info = chunk.tableInfo();
    flush();   // the log's entries keep their order
    Savepoint before = connection.setSavepoint();
    String refusal;
    String addBack = null;
    try {
      lock(target);
      PrimaryKey key = primaryKey(target);
      refusal = refusal(target, info, key);
      if (refusal == null) {
        try (Statement st = connection.createStatement()) {
          st.execute("ALTER TABLE " + target + " DROP CONSTRAINT " + Dialect.POSTGRESQL.quote(key.name()));
        }
        ensureLog();
        writeInfo(info.getTableId(), chunk.commitTs(), info);
        addBack = "ALTER TABLE " + target + " ADD CONSTRAINT " + Dialect.POSTGRESQL.quote(key.name()) + " "
            + key.definition();
        connection.releaseSavepoint(before);
      } else {
        connection.rollback(before);   // and with it the table's lock
      }
    } catch (SQLException e) {
      try {
        connection.rollback(before);
      } catch (SQLException broken) {
        e.addSuppressed(broken);
        throw e;   // the connection is gone: the caller's transaction fails
      }
      refusal = "probing or dropping it failed (SQL state " + e.getSQLState() + "): " + SqlErrorText.of(e);
    }
    infos.remove(info.getTableId());
    if (refusal != null) {
      LOG.atInfo().addKeyValue("changefeedId", changefeedId).addKeyValue("table", chunk.tableName())
          .addKeyValue("tableId", info.getTableId()).addKeyValue("commitTs", chunk.commitTs())
          .log("the snapshot loads into the table with its primary key: {}", refusal);
      return null;
    }
    infos.put(info.getTableId(), info);
    LOG.atInfo().addKeyValue("changefeedId", changefeedId).addKeyValue("table", chunk.tableName())
        .addKeyValue("tableId", info.getTableId()).addKeyValue("commitTs", chunk.commitTs())
        .log("the snapshot loads into the table without its primary key, built after the last chunk; "
            + "its changes wait in {} until then: {}", log, addBack);
    return addBack;
  }

  /** A table's PRIMARY KEY constraint as the catalog has it. */
  private record PrimaryKey(String name, String definition, Set<String> columns, boolean replicaIdentity,
      boolean clustered, boolean deferrable) {}

  /** Nobody else reads or writes the table until the transaction ends; refused at once when somebody does now. */
  private void lock(String target) throws SQLException {
    try (Statement st = connection.createStatement()) {
      st.execute("LOCK TABLE " + target + " IN ACCESS EXCLUSIVE MODE NOWAIT");
    }
  }

  /** Why {@code target} keeps its key {@code key} (null: it has none), or null when it may go. */
  private String refusal(String target, TableInfo info, PrimaryKey key) throws SQLException {
    if (key == null) {
      return "the target table has no PRIMARY KEY constraint";
    }
    if (!key.columns().equals(Set.copyOf(info.getPrimaryKeyList()))) {
      return "its primary key " + key.definition() + " is not on the key columns " + info.getPrimaryKeyList();
    }
    if (key.deferrable()) {
      return "its primary key is DEFERRABLE";   // no ON CONFLICT arbiter either: the ordinary path names it
    }
    if (key.replicaIdentity() || key.clustered()) {
      return "its primary key's index is the table's " + (key.replicaIdentity() ? "replica identity" : "cluster index")
          + ", which a key added back would not be";
    }
    try (PreparedStatement ps = connection.prepareStatement("SELECT relkind = 'p', relispartition FROM pg_class "
        + "WHERE oid = CAST(? AS regclass)")) {
      ps.setString(1, target);
      try (ResultSet rs = ps.executeQuery()) {
        // a partitioned table's key is its partitions' too (dropping it drops theirs), a partition's is often its parent's
        if (rs.next() && (rs.getBoolean(1) || rs.getBoolean(2))) {
          return "it is " + (rs.getBoolean(1) ? "a partitioned table" : "a partition") + ", whose key the hierarchy shares";
        }
      }
    }
    try (PreparedStatement ps = connection.prepareStatement("SELECT conname, conrelid::regclass::text FROM "
        + "pg_constraint WHERE contype = 'f' AND confrelid = CAST(? AS regclass) LIMIT 1")) {
      ps.setString(1, target);
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          return "foreign key " + rs.getString(1) + " of " + rs.getString(2) + " references it";
        }
      }
    }
    try (Statement st = connection.createStatement();
         ResultSet rs = st.executeQuery("SELECT NOT EXISTS (SELECT 1 FROM " + target + ")")) {
      rs.next();
      return rs.getBoolean(1) ? null : "the target table is not empty";
    }
  }

  /**
   * The PRIMARY KEY constraint of {@code target}, or null when it has none. Its definition is
   * {@code pg_get_constraintdef}'s with the index's storage parameters and tablespace, which that leaves out (pg_dump
   * adds them the same way).
   */
  private PrimaryKey primaryKey(String target) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement("SELECT c.conname, pg_get_constraintdef(c.oid)"
        + " || COALESCE(' WITH (' || (SELECT string_agg(quote_ident(split_part(o, '=', 1)) || '=' "
        + "|| quote_literal(substr(o, strpos(o, '=') + 1)), ', ') FROM unnest(ic.reloptions) o) || ')', '')"
        + " || COALESCE(' USING INDEX TABLESPACE ' || (SELECT quote_ident(spcname) FROM pg_tablespace "
        + "WHERE oid = ic.reltablespace), ''), "
        + "ARRAY(SELECT a.attname::text FROM pg_attribute a WHERE a.attrelid = c.conrelid "
        + "AND a.attnum = ANY (c.conkey)), "
        + "i.indisreplident, i.indisclustered, c.condeferrable FROM pg_constraint c "
        + "JOIN pg_index i ON i.indexrelid = c.conindid JOIN pg_class ic ON ic.oid = c.conindid "
        + "WHERE c.conrelid = CAST(? AS regclass) AND c.contype = 'p'")) {
      ps.setString(1, target);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        Array columns = rs.getArray(3);
        return new PrimaryKey(rs.getString(1), rs.getString(2), Set.of((String[]) columns.getArray()),
            rs.getBoolean(4), rs.getBoolean(5), rs.getBoolean(6));
      }
    }
  }

  /**
   * Whether {@code info} is the table info the table's logged rows follow (versions aside): otherwise its shape
   * changed without a DDL applied here, and the deferral must finish before its rows go on.
   */
  boolean follows(long tableId, TableInfo info) throws SQLException {
    TableInfo logged = infos.get(tableId);
    if (logged == null) {
      logged = readInfo(tableId);
      if (logged == null) {
        return false;
      }
      infos.put(tableId, logged);
    }
    return logged == info || (logged.getColumnsList().equals(info.getColumnsList())
        && logged.getPrimaryKeyList().equals(info.getPrimaryKeyList())
        && logged.getSchemaName().equals(info.getSchemaName()) && logged.getTableName().equals(info.getTableName()));
  }

  /**
   * Writes the rows of {@code t}, a table whose key is deferred, that {@code at} does not cover: whole READ rows
   * into {@code target} (by one COPY when {@code chunk} holds their images), every other change into the log.
   */
  void write(String target, Transaction t, Checkpoint at, List<RowImage> chunk) throws SQLException {
    writer.flush();   // rows batched before it keep their order
    if (chunk != null && copyLoader.insert(target, t.tableInfo(), chunk)) {
      return;
    }
    for (RowChangeView row : t.rows()) {
      if (at.covers(t.commitTs(), row.rowSeq())) {
        continue;
      }
      if (isWholeRead(t.tableInfo(), row)) {
        writer.insert(target, t.tableInfo(), row.after());
      } else {
        append(t.tableId(), t.commitTs(), row);
      }
    }
  }

  private static boolean isWholeRead(TableInfo info, RowChangeView row) {
    if (row.op() != RowOp.ROW_OP_READ || row.after().size() < info.getColumnsCount()) {
      return false;
    }
    if (row.after().copyLine() != null) {
      return true;   // the upstream's COPY output: every column, nothing unavailable
    }
    for (int i = 0; i < info.getColumnsCount(); i++) {
      if (row.after().value(i).hasUnavailable()) {
        return false;
      }
    }
    return true;
  }

  private void append(long tableId, long commitTs, RowChangeView row) throws SQLException {
    if (append == null) {
      append = connection.prepareStatement("INSERT INTO " + log + " (changefeed_id, table_id, commit_ts, row_seq, "
          + "row_change) VALUES (?, ?, ?, ?, ?)");
    }
    RowChange change = RowChange.newBuilder().setOp(row.op()).addAllBefore(row.before().values())
        .addAllAfter(row.after().values()).setRowSeq(row.rowSeq()).setKeyHash(row.keyHash()).build();
    append.setString(1, changefeedId);
    append.setLong(2, tableId);
    append.setLong(3, commitTs);
    append.setLong(4, row.rowSeq());
    append.setBytes(5, change.toByteArray());
    append.addBatch();
    if (++pendingRows >= batchSize) {
      flush();
    }
  }

  /** Executes the log's pending batch (before the target transaction commits, and before the log is read). */
  void flush() throws SQLException {
    if (pendingRows > 0) {
      pendingRows = 0;
      append.executeBatch();
    }
  }

  /**
   * Adds table {@code tableId}'s key back by {@code addBack}, replays its log in order through {@code replay}, and
   * deletes the log, in the open target transaction; returns the changes replayed. With {@code ifTableExists}
   * (its stream ended) a target table that is gone only has its log deleted.
   *
   * @param table "schema.table", for the log and the error
   * @throws SQLException naming the table and the statement when the key cannot be added back (duplicate keys)
   */
  long finish(long tableId, String table, String addBack, boolean ifTableExists, Replay replay) throws SQLException {
    flush();
    long started = System.nanoTime();
    Savepoint before = ifTableExists ? connection.setSavepoint() : null;
    try (Statement st = connection.createStatement()) {
      st.execute(addBack);
    } catch (SQLException e) {
      if (before != null && UNDEFINED_TABLE.equals(e.getSQLState())) {
        connection.rollback(before);
        discard(tableId, table);
        return 0;
      }
      throw new SQLException("adding the primary key of " + table + " back after loading its snapshot without it "
          + "failed, so the table stays without it and the sink stops here (" + addBack + "): " + e.getMessage(),
          e.getSQLState(), e);
    }
    long buildMs = (System.nanoTime() - started) / 1_000_000;
    long replayed = replay(tableId, table, replay);
    writer.flush();
    deleteLog(tableId);
    infos.remove(tableId);
    LOG.atInfo().addKeyValue("changefeedId", changefeedId).addKeyValue("table", table).addKeyValue("tableId", tableId)
        .addKeyValue("rowsReplayed", replayed).addKeyValue("indexBuildMs", buildMs)
        .addKeyValue("finishMs", (System.nanoTime() - started) / 1_000_000)
        .log("primary key added back after the snapshot load, the changes logged meanwhile replayed: {}", addBack);
    return replayed;
  }

  /** Deletes table {@code tableId}'s log, its changes never applied (the table was dropped). */
  void discard(long tableId, String table) throws SQLException {
    flush();
    long rows = deleteLog(tableId);
    infos.remove(tableId);
    LOG.atInfo().addKeyValue("changefeedId", changefeedId).addKeyValue("table", table).addKeyValue("tableId", tableId)
        .addKeyValue("rowsDiscarded", rows).log("the table's stream ended while its snapshot loaded without its "
            + "primary key; its logged changes are discarded");
  }

  private long replay(long tableId, String table, Replay replay) throws SQLException {
    long replayed = 0;
    long afterSeq = 0;
    TableInfo info = null;
    try (PreparedStatement ps = connection.prepareStatement("SELECT seq, commit_ts, row_change, table_info FROM " + log
        + " WHERE changefeed_id = ? AND table_id = ? AND seq > ? ORDER BY seq LIMIT " + REPLAY_PAGE_ROWS)) {
      int read;
      do {
        read = 0;
        ps.setString(1, changefeedId);
        ps.setLong(2, tableId);
        ps.setLong(3, afterSeq);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            read++;
            afterSeq = rs.getLong(1);
            byte[] infoBytes = rs.getBytes(4);
            if (infoBytes != null) {
              info = TableInfo.parseFrom(infoBytes);
              continue;
            }
            if (info == null) {
              throw new SQLException("the log of " + table + " in " + log + " has a change (seq " + afterSeq
                  + ") before the table info it follows", "XX001");
            }
            replay.write(info, rs.getLong(2), RowChangeView.of(info, RowChange.parseFrom(rs.getBytes(3))));
            replayed++;
          }
        }
      } while (read == REPLAY_PAGE_ROWS);
    } catch (InvalidProtocolBufferException e) {
      throw new SQLException("the log of " + table + " in " + log + " holds an unreadable entry after seq " + afterSeq
          + ": " + e.getMessage(), "XX001", e);
    }
    return replayed;
  }

  private long deleteLog(long tableId) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement("DELETE FROM " + log + " WHERE changefeed_id = ? "
        + "AND table_id = ?")) {
      ps.setString(1, changefeedId);
      ps.setLong(2, tableId);
      return ps.executeUpdate();
    }
  }

  /** The log's entry that the table's changes after it follow {@code info}. */
  private void writeInfo(long tableId, long commitTs, TableInfo info) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement("INSERT INTO " + log + " (changefeed_id, table_id, "
        + "commit_ts, row_seq, table_info) VALUES (?, ?, ?, 0, ?)")) {
      ps.setString(1, changefeedId);
      ps.setLong(2, tableId);
      ps.setLong(3, commitTs);
      ps.setBytes(4, info.toByteArray());
      ps.executeUpdate();
    }
  }

  /** The table info the table's logged changes follow (the last such entry), or null when it has no log. */
  private TableInfo readInfo(long tableId) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement("SELECT table_info FROM " + log + " WHERE changefeed_id = ?"
        + " AND table_id = ? AND table_info IS NOT NULL ORDER BY seq DESC LIMIT 1")) {
      ps.setString(1, changefeedId);
      ps.setLong(2, tableId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? TableInfo.parseFrom(rs.getBytes(1)) : null;
      }
    } catch (InvalidProtocolBufferException e) {
      throw new SQLException("the log of table " + tableId + " in " + log + " holds an unreadable table info: "
          + e.getMessage(), "XX001", e);
    }
  }

  /** Creates the log table when missing (once per connection). */
  private void ensureLog() throws SQLException {
    if (logReady) {
      return;
    }
    try (Statement st = connection.createStatement()) {
      // an entry is a change (row_change) or the table info the changes after it follow (table_info)
      st.execute("CREATE TABLE IF NOT EXISTS " + log + " (changefeed_id VARCHAR(255) NOT NULL, table_id BIGINT NOT "
          + "NULL, seq BIGSERIAL NOT NULL, commit_ts BIGINT NOT NULL, row_seq BIGINT NOT NULL, row_change BYTEA NULL, "
          + "table_info BYTEA NULL, CHECK ((row_change IS NULL) <> (table_info IS NULL)), "
          + "PRIMARY KEY (changefeed_id, table_id, seq))");
    }
    logReady = true;
  }

  /** The open target transaction rolled back: its pending log rows are gone, and what was read of the log may be. */
  void rolledBack() {
    pendingRows = 0;
    if (append != null) {
      try {
        append.clearBatch();
      } catch (SQLException e) {
        // the statement is broken with its connection; it is not used again then
      }
    }
    infos.clear();
    logReady = false;   // a CREATE rolled back with the transaction is made again
  }
}
