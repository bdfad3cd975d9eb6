package dev.sluice.dispatcher;

import dev.sluice.api.v1.ColumnInfo;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.Value;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * One row image (before or after) read through the {@link TableInfo} in force: values are positional
 * on the wire, this view names them. An absent image (the before of an INSERT) is
 * {@link #isPresent() not present}. {@link Value#hasUnavailable() Unavailable} values (PostgreSQL
 * unchanged TOAST) mean "keep the current value".
 *
 * <pre>{@code
 * long id = row.after().getLong("id");
 * Value note = row.after().value("note");
 * Map<String, Value> all = row.after().asMap();
 * }</pre>
 */
public final class RowImage {

  private static final RowImage ABSENT = new RowImage(TableInfo.getDefaultInstance(), List.of());

  private final TableInfo table;
  private final List<Value> values;

  private RowImage(TableInfo table, List<Value> values) {
    this.table = table;
    this.values = values;
  }

  /** The image of {@code values} over {@code table}; empty values make an absent image. */
  public static RowImage of(TableInfo table, List<Value> values) {
    return values.isEmpty() ? ABSENT : new RowImage(table, values);
  }

  public boolean isPresent() {
    return !values.isEmpty();
  }

  /** Number of values (the column count of the table info in force when present). */
  public int size() {
    return values.size();
  }

  /** The value at column position {@code i}. */
  public Value value(int i) {
    return values.get(i);
  }

  /** The value of column {@code name}; throws naming the column and table when there is none. */
  public Value value(String name) {
    return values.get(indexOf(name));
  }

  public boolean isNull(String name) {
    return value(name).hasNullValue();
  }

  /** Whether the source did not send this column's value (it is unchanged). */
  public boolean isUnavailable(String name) {
    return value(name).hasUnavailable();
  }

  public long getLong(String name) {
    return value(name).getInt64Value();
  }

  public String getString(String name) {
    return value(name).getStringValue();
  }

  /** Column name to value, in column order. */
  public Map<String, Value> asMap() {
    Map<String, Value> map = new LinkedHashMap<>();
    for (int i = 0; i < values.size() && i < table.getColumnsCount(); i++) {
      map.put(table.getColumns(i).getName(), values.get(i));
    }
    return Collections.unmodifiableMap(map);
  }

  /** The raw positional values. */
  public List<Value> values() {
    return values;
  }

  private int indexOf(String name) {
    List<ColumnInfo> columns = table.getColumnsList();
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).getName().equals(name)) {
        if (i >= values.size()) {
          throw new NoSuchElementException("column " + name + " of " + table.getSchemaName() + "."
              + table.getTableName() + " is not in this image (" + values.size() + " values)");
        }
        return i;
      }
    }
    throw new NoSuchElementException("no column " + name + " in " + table.getSchemaName() + "."
        + table.getTableName());
  }

  @Override
  public String toString() {
    return isPresent() ? asMap().toString() : "(absent)";
  }
}
