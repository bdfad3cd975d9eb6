package dev.sluice.dispatcher.sink;

import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.Value;
import dev.sluice.dispatcher.RowImage;
import java.sql.BatchUpdateException;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The target refused a row of a batch: the driver's error with the row it was about (source table
 * and key, and the columns whose values are too long to show), so a message names the row without
 * carrying the statement's values. Keeps the driver's SQL state, vendor code and stack trace;
 * {@link #getMessage()} is the driver's text with its chained errors, capped ({@link SqlErrorText}).
 * It has no cause: the driver's exception would carry the uncapped statement into every log line.
 *
 * <pre>{@code
 * catch (RejectedRowException e) { log.warn("{} refused {}: {}", e.table(), e.row(), e.getMessage()); }
 * }</pre>
 */
final class RejectedRowException extends SQLException {

  /** PgJDBC names the failing entry of a batch. */
  private static final Pattern BATCH_ENTRY = Pattern.compile("Batch entry (\\d+)");

  /**
   * One row of a batch: an upsert's after image, or a delete's key values.
   *
   * @param info     the row's table
   * @param commitTs the commit ts of its transaction (0 when not known)
   * @param after    the upserted image, or null for a delete
   * @param key      the deleted key values, or null for an upsert
   */
  record Row(TableInfo info, long commitTs, RowImage after, List<Value> key) {

    String table() {
      return info.getSchemaName() + "." + info.getTableName();
    }

    /** {@code (id, region)=(42, eu)}; the values capped. */
    String keyText() {
      List<Value> values = key != null ? key : RowWriter.keyOf(info, after);
      List<String> names = info.getPrimaryKeyList();
      if (values == null || names.isEmpty()) {
        return "(no key)";
      }
      List<String> shown = new ArrayList<>();
      for (Value v : values) {
        shown.add(SqlErrorText.value(v));
      }
      return "(" + String.join(", ", names) + ")=(" + String.join(", ", shown) + ")";
    }

    /** Columns of the after image whose value is longer than a message shows. */
    List<String> longColumns() {
      List<String> out = new ArrayList<>();
      if (after == null) {
        return out;
      }
      for (int i = 0; i < after.size() && i < info.getColumnsCount(); i++) {
        Value v = after.value(i);
        int size = v.hasStringValue() ? v.getStringValue().length() : v.hasBytesValue() ? v.getBytesValue().size()
            : v.hasJsonValue() ? v.getJsonValue().length() : v.hasDecimalValue() ? v.getDecimalValue().length() : 0;
        if (size > SqlErrorText.VALUE_CHARS) {
          out.add(info.getColumns(i).getName() + " (" + size + (v.hasBytesValue() ? " bytes)" : " chars)"));
        }
      }
      return out;
    }
  }

  private final String table;
  private final String row;
  private final long commitTs;

  private RejectedRowException(SQLException driver, String table, String row, long commitTs) {
    super(SqlErrorText.of(driver), SqlErrorText.sqlState(driver), driver.getErrorCode());
    setStackTrace(driver.getStackTrace());
    this.table = table;
    this.row = row;
    this.commitTs = commitTs;
  }

  /** {@code e} about one of {@code rows} (the batch in order), naming the one the driver points at. */
  static RejectedRowException of(SQLException e, List<Row> rows) {
    if (e instanceof RejectedRowException r) {
      return r;
    }
    int index = failedIndex(e, rows.size());
    if (index >= 0) {
      Row r = rows.get(index);
      List<String> long_ = r.longColumns();
      return new RejectedRowException(e, r.table(), "row " + r.keyText()
          + (long_.isEmpty() ? "" : " (long values: " + String.join(", ", long_) + ")"), r.commitTs());
    }
    if (rows.isEmpty()) {
      return new RejectedRowException(e, null, null, 0);
    }
    Row first = rows.get(0);
    return new RejectedRowException(e, first.table(), "one of " + rows.size() + " rows of a batch (the first "
        + first.keyText() + ")", 0);
  }

  /** The source table of the refused row ("schema.table"), or null when unknown. */
  String table() {
    return table;
  }

  /** The commit ts of the refused row's transaction, 0 when not known (one of several rows). */
  long commitTs() {
    return commitTs;
  }

  /** Which row, e.g. {@code row (id)=(42) (long values: note (100000 chars))}, or null when unknown. */
  String row() {
    return row;
  }

  private static int failedIndex(SQLException e, int size) {
    if (size == 1) {
      return 0;
    }
    Matcher m = BATCH_ENTRY.matcher(String.valueOf(e.getMessage()));
    if (m.find()) {
      int i = Integer.parseInt(m.group(1));
      return i < size ? i : -1;
    }
    if (e instanceof BatchUpdateException b && b.getUpdateCounts() != null) {
      int[] counts = b.getUpdateCounts();
      for (int i = 0; i < counts.length && i < size; i++) {
        if (counts[i] == Statement.EXECUTE_FAILED) {
          return i;
        }
      }
      if (counts.length < size && counts.length > 0) {
        return counts.length;   // drivers that stop at the first failure count the entries before it
      }
    }
    return -1;
  }
}
