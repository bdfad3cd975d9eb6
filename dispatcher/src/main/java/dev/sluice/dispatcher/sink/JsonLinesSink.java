package dev.sluice.dispatcher.sink;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.sluice.api.v1.ColumnInfo;
import dev.sluice.api.v1.RowOp;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.Value;
import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.DdlChange;
import dev.sluice.dispatcher.RowChangeView;
import dev.sluice.dispatcher.RowImage;
import dev.sluice.dispatcher.Transaction;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes one JSON object per row change, one per line:
 * {@code {"table":"public.orders","op":"update","commit_ts":101,"row_seq":0,"before":{...},"after":{...}}}
 * (DDL as {@code "op":"ddl"} with its type and query). Unavailable values (unchanged TOAST) are left
 * out of the image and named in {@code "unavailable"}.
 *
 * <p>At least once: after each batch the data is flushed and fsynced, then the checkpoint side file
 * is written (temp file, fsync, atomic rename, directory fsync). A crash between the two repeats the
 * lines written since the previous checkpoint; nothing is lost. Transactions the checkpoint covers
 * are skipped on replay. To stdout there is no fsync; the side file is optional.
 *
 * <p>Not fenced: a file has no transaction to hold a fencing token beside the lines, so when a cluster
 * moves a hosted changefeed, a cut-off old owner may go on appending to its own file until it learns it
 * was replaced, and the new owner (on its own disk) starts from the checkpoint the cluster recorded.
 * At least once across a move, never exactly once (docs/CLUSTER.md).
 *
 * <pre>{@code
 * try (JsonLinesSink sink = JsonLinesSink.toFile(Path.of("orders.jsonl"), "cf1")) {
 *   sink.apply(List.of(txn), txn.commitTs());
 * }
 * }</pre>
 */
public final class JsonLinesSink implements Sink {

  private final String changefeedId;
  private final OutputStream out;
  private final FileChannel channel;
  private final Path checkpointFile;
  private long checkpointTs;
  private final Map<Long, SinkCheckpoint.TableProgress> progress = new HashMap<>();

  private JsonLinesSink(String changefeedId, OutputStream out, FileChannel channel, Path checkpointFile) {
    this.changefeedId = changefeedId;
    this.out = out;
    this.channel = channel;
    this.checkpointFile = checkpointFile;
  }

  /** Appends to {@code dataFile}; the checkpoint goes to {@code dataFile + ".checkpoint"}. */
  public static JsonLinesSink toFile(Path dataFile, String changefeedId) {
    try {
      Path parent = dataFile.toAbsolutePath().getParent();
      Files.createDirectories(parent);
      FileChannel ch = FileChannel.open(dataFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
          StandardOpenOption.APPEND);
      JsonLinesSink sink = new JsonLinesSink(changefeedId, new BufferedOutputStream(Channels.newOutputStream(ch),
          1 << 16), ch, dataFile.resolveSibling(dataFile.getFileName() + ".checkpoint"));
      sink.readCheckpoint();
      return sink;
    } catch (IOException e) {
      throw new SinkUnavailableException("cannot open " + dataFile + ": " + e.getMessage(), e);
    }
  }

  /** Writes to {@code out} (stdout, a socket); keeps a checkpoint side file when {@code checkpointFile} is not null. */
  public static JsonLinesSink toStream(OutputStream out, Path checkpointFile, String changefeedId) {
    JsonLinesSink sink = new JsonLinesSink(changefeedId, new BufferedOutputStream(out, 1 << 16), null, checkpointFile);
    try {
      sink.readCheckpoint();
    } catch (IOException e) {
      throw new SinkUnavailableException("cannot read " + checkpointFile + ": " + e.getMessage(), e);
    }
    return sink;
  }

  @Override
  public SinkCheckpoint checkpoint() {
    return new SinkCheckpoint(checkpointTs, progress);
  }

  @Override
  public void apply(List<Transaction> transactions, long changefeedCheckpointTs) {
    Map<Long, SinkCheckpoint.TableProgress> reached = new HashMap<>();
    try {
      for (Transaction t : transactions) {
        SinkCheckpoint.TableProgress p = reached.getOrDefault(t.tableId(), progress.get(t.tableId()));
        Checkpoint at = p == null ? Checkpoint.at(0) : p.applied();
        if (at.coversAll(t.commitTs()) || (p != null && p.dropped())) {
          continue;
        }
        for (RowChangeView row : t.rows()) {
          if (!at.covers(t.commitTs(), row.rowSeq())) {
            writeRow(t, row);
          }
        }
        reached.put(t.tableId(), new SinkCheckpoint.TableProgress(t.tableName(), at.max(t.checkpoint()),
            p == null ? 0 : p.ddlTs(), 0, (p == null ? TableSnapshot.NONE : p.snapshot()).after(t)));
      }
      sync();
    } catch (IOException e) {
      throw new SinkUnavailableException("writing JSON lines failed: " + e.getMessage(), e);
    }
    progress.putAll(reached);
    checkpointTs = Math.max(checkpointTs, changefeedCheckpointTs);
    writeCheckpoint();
  }

  @Override
  public void applyDdl(DdlChange ddl, long changefeedCheckpointTs) {
    SinkCheckpoint.TableProgress p = progress.get(ddl.tableId());
    if (p != null && (p.dropped() || ddl.isCoveredBy(p.applied(), p.ddlTs()))) {
      return;
    }
    try {
      JsonGenerator g = line();
      g.writeStringField("table", ddl.tableName());
      g.writeStringField("op", "ddl");
      g.writeNumberField("commit_ts", ddl.commitTs());
      g.writeStringField("ddl_type", ddl.ddlType().name().replace("DDL_TYPE_", "").toLowerCase());
      g.writeStringField("query", ddl.query());
      g.writeStringField("dialect", ddl.dialect());
      g.writeNumberField("row_seq", ddl.rowSeq());
      if (!ddl.volatileDefaultColumns().isEmpty()) {
        g.writeArrayFieldStart("volatile_default_columns");
        for (String c : ddl.volatileDefaultColumns()) {
          g.writeString(c);
        }
        g.writeEndArray();
      }
      endLine(g);
      sync();
    } catch (IOException e) {
      throw new SinkUnavailableException("writing JSON lines failed: " + e.getMessage(), e);
    }
    Checkpoint applied = ddl.position();
    SinkCheckpoint.TableProgress next = new SinkCheckpoint.TableProgress(ddl.tableName(),
        p == null ? applied : p.applied().max(applied), ddl.commitTs(), 0, p == null ? null : p.snapshot());
    progress.put(ddl.tableId(), ddl.ddlType() == dev.sluice.api.v1.DdlType.DDL_TYPE_DROP_TABLE
        ? next.droppedAt(ddl.commitTs()) : next);
    checkpointTs = Math.max(checkpointTs, changefeedCheckpointTs);
    writeCheckpoint();
  }

  @Override
  public void markDropped(long tableId, String tableName, long droppedTs) {
    SinkCheckpoint.TableProgress p = progress.get(tableId);
    if (p != null && p.dropped()) {
      return;
    }
    progress.put(tableId, (p != null ? p : new SinkCheckpoint.TableProgress(tableName, Checkpoint.at(0), 0))
        .droppedAt(droppedTs));
    writeCheckpoint();
  }

  /** Records the table's snapshot in the checkpoint file (the lines before it are already synced). */
  @Override
  public void recordSnapshot(long tableId, String tableName, TableSnapshot snapshot) {
    SinkCheckpoint.TableProgress p = progress.get(tableId);
    SinkCheckpoint.TableProgress base = p != null ? p : new SinkCheckpoint.TableProgress(tableName, Checkpoint.at(0), 0);
    if (!base.snapshot().equals(snapshot)) {
      progress.put(tableId, base.withSnapshot(snapshot));
      writeCheckpoint();
    }
  }

  @Override
  public void advance(long changefeedCheckpointTs) {
    if (changefeedCheckpointTs > checkpointTs) {
      checkpointTs = changefeedCheckpointTs;
      writeCheckpoint();
    }
  }

  @Override
  public void close() {
    try {
      out.flush();
      if (channel != null) {
        channel.close();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // ---- lines ---------------------------------------------------------------------------------

  private void writeRow(Transaction t, RowChangeView row) throws IOException {
    JsonGenerator g = line();
    g.writeStringField("table", t.tableName());
    g.writeStringField("op", op(row.op()));
    g.writeNumberField("commit_ts", t.commitTs());
    g.writeNumberField("row_seq", row.rowSeq());
    List<String> unavailable = new ArrayList<>();
    g.writeFieldName("before");
    image(g, t.tableInfo(), row.before(), unavailable);
    g.writeFieldName("after");
    image(g, t.tableInfo(), row.after(), unavailable);
    if (!unavailable.isEmpty()) {
      g.writeArrayFieldStart("unavailable");
      for (String c : unavailable) {
        g.writeString(c);
      }
      g.writeEndArray();
    }
    endLine(g);
  }

  private static void image(JsonGenerator g, TableInfo table, RowImage image, List<String> unavailable)
      throws IOException {
    if (!image.isPresent()) {
      g.writeNull();
      return;
    }
    g.writeStartObject();
    for (int i = 0; i < image.size() && i < table.getColumnsCount(); i++) {
      ColumnInfo c = table.getColumns(i);
      Value v = image.value(i);
      if (v.hasUnavailable()) {
        if (!unavailable.contains(c.getName())) {
          unavailable.add(c.getName());
        }
        continue;
      }
      g.writeFieldName(c.getName());
      JsonValues.write(g, v);
    }
    g.writeEndObject();
  }

  private static String op(RowOp op) {
    return switch (op) {
      case ROW_OP_INSERT -> "insert";
      case ROW_OP_UPDATE -> "update";
      case ROW_OP_DELETE -> "delete";
      case ROW_OP_READ -> "read";
      case ROW_OP_UNSPECIFIED, UNRECOGNIZED -> "unknown";
    };
  }

  private JsonGenerator line() throws IOException {
    JsonGenerator g = JsonValues.FACTORY.createGenerator(out);
    g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
    g.writeStartObject();
    return g;
  }

  private void endLine(JsonGenerator g) throws IOException {
    g.writeEndObject();
    g.flush();
    out.write('\n');
  }

  private void sync() throws IOException {
    out.flush();
    if (channel != null) {
      channel.force(false);
    }
  }

  // ---- checkpoint side file ------------------------------------------------------------------

  private void writeCheckpoint() {
    if (checkpointFile == null) {
      return;
    }
    Path tmp = checkpointFile.resolveSibling(checkpointFile.getFileName() + ".tmp");
    try {
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
          StandardOpenOption.TRUNCATE_EXISTING); OutputStream os = Channels.newOutputStream(ch);
           JsonGenerator g = JsonValues.FACTORY.createGenerator(os)) {
        g.writeStartObject();
        g.writeStringField("changefeed_id", changefeedId);
        g.writeNumberField("checkpoint_ts", checkpointTs);
        g.writeArrayFieldStart("tables");
        for (Map.Entry<Long, SinkCheckpoint.TableProgress> e : progress.entrySet()) {
          SinkCheckpoint.TableProgress p = e.getValue();
          g.writeStartObject();
          g.writeNumberField("table_id", e.getKey());
          g.writeStringField("table_name", p.tableName());
          g.writeNumberField("checkpoint_ts", p.applied().ts());
          g.writeNumberField("cursor_commit_ts", p.applied().cursorCommitTs());
          g.writeNumberField("next_row_seq", p.applied().nextRowSeq());
          g.writeNumberField("ddl_ts", p.ddlTs());
          g.writeNumberField("dropped_ts", p.droppedTs());
          if (p.snapshot().state() != TableSnapshot.State.NONE) {
            g.writeNumberField("snapshot_state", p.snapshot().state().ordinal());
            g.writeStringField("snapshot_cursor", p.snapshot().cursorText());
            g.writeNumberField("snapshot_rows", p.snapshot().rows());
            g.writeNumberField("snapshot_since_ts", p.snapshot().sinceTs());
          }
          g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
        g.flush();
        ch.force(true);
      }
      try {
        Files.move(tmp, checkpointFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, checkpointFile, StandardCopyOption.REPLACE_EXISTING);
      }
      try (FileChannel dir = FileChannel.open(checkpointFile.toAbsolutePath().getParent(), StandardOpenOption.READ)) {
        dir.force(true);   // the rename itself is durable only once the directory is
      } catch (IOException e) {
        // some file systems cannot open a directory; the rename is still atomic
      }
    } catch (IOException e) {
      throw new SinkUnavailableException("writing checkpoint " + checkpointFile + " failed: " + e.getMessage(), e);
    }
  }

  private void readCheckpoint() throws IOException {
    if (checkpointFile == null || !Files.exists(checkpointFile)) {
      return;
    }
    try (JsonParser p = JsonValues.FACTORY.createParser(Files.readString(checkpointFile, StandardCharsets.UTF_8))) {
      expect(p.nextToken(), JsonToken.START_OBJECT);
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        p.nextToken();
        switch (field) {
          case "changefeed_id" -> {
            if (!changefeedId.equals(p.getText())) {
              throw new IllegalStateException("checkpoint file " + checkpointFile + " belongs to changefeed "
                  + p.getText() + ", not " + changefeedId);
            }
          }
          case "checkpoint_ts" -> checkpointTs = p.getLongValue();
          case "tables" -> readTables(p);
          default -> p.skipChildren();
        }
      }
    }
  }

  private void readTables(JsonParser p) throws IOException {
    expect(p.currentToken(), JsonToken.START_ARRAY);
    while (p.nextToken() == JsonToken.START_OBJECT) {
      Map<String, Object> f = new HashMap<>();
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        p.nextToken();
        f.put(name, p.currentToken() == JsonToken.VALUE_STRING ? p.getText() : (Object) p.getLongValue());
      }
      progress.put((Long) f.get("table_id"), new SinkCheckpoint.TableProgress((String) f.get("table_name"),
          new Checkpoint((Long) f.get("checkpoint_ts"), (Long) f.get("cursor_commit_ts"), (Long) f.get("next_row_seq")),
          (Long) f.get("ddl_ts"), (Long) f.getOrDefault("dropped_ts", 0L),
          TableSnapshot.of(((Long) f.getOrDefault("snapshot_state", 0L)).intValue(), (String) f.get("snapshot_cursor"),
              (Long) f.getOrDefault("snapshot_rows", 0L), (Long) f.getOrDefault("snapshot_since_ts", 0L))));
    }
  }

  private void expect(JsonToken actual, JsonToken expected) {
    if (actual != expected) {
      throw new IllegalStateException("checkpoint file " + checkpointFile + " is not a Sluice checkpoint (expected "
          + expected + ", got " + actual + ")");
    }
  }
}
