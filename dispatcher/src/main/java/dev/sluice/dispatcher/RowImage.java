package dev.sluice.dispatcher;

import dev.sluice.api.v1.ColumnInfo;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.Value;
import dev.sluice.api.v1.ValueKind;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.UUID;

/**
 * One row image (before or after) read through the {@link TableInfo} in force: values are positional
 * on the wire, this view names them and reads them as Java types. An absent image (the before of an
 * INSERT or UPDATE) is {@link #isPresent() not present}. A getter reads exactly its kind
 * ({@link #getDecimal} a numeric, {@link #getInstant} a timestamptz, ...) and throws, naming the column,
 * for anything else: SQL NULL in a primitive getter (object getters return null), a value the source did not
 * send ({@link #isUnavailable}: PostgreSQL unchanged TOAST, which means "keep the current value"), a special
 * date or timestamp ({@link #isInfinite}), or another kind.
 *
 * <pre>{@code
 * long id = row.after().getLong("id");
 * BigDecimal amount = row.after().getDecimal("amount");
 * Instant at = row.after().getInstant("created_at");            // timestamptz
 * String note = row.after().isUnavailable("note") ? current.note() : row.after().getString("note");
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

  /** Whether the change has this image (an INSERT has no before image, a DELETE no after image). */
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

  /** Whether column {@code name} is SQL NULL. */
  public boolean isNull(String name) {
    return value(name).hasNullValue();
  }

  /** Whether the source did not send this column's value (PostgreSQL unchanged TOAST: it is unchanged). */
  public boolean isUnavailable(String name) {
    return value(name).hasUnavailable();
  }

  /** Whether column {@code name} holds PostgreSQL's date or timestamp 'infinity' or '-infinity'. */
  public boolean isInfinite(String name) {
    return reader(name).isInfinite();
  }

  /** The column's declared kind in the table info in force (which getter fits it). */
  public ValueKind kind(String name) {
    return table.getColumns(indexOf(name)).getKind();
  }

  /**
   * An integer column (smallint, integer, bigint, and the like).
   *
   * @throws IllegalStateException when the value is NULL, unavailable or of another kind (the message names the
   *     table, column, kind and the getter to use)
   */
  public long getLong(String name) {
    return reader(name).getLong();
  }

  /**
   * A floating-point column (real, double precision).
   *
   * @throws IllegalStateException when the value is NULL, unavailable or of another kind
   */
  public double getDouble(String name) {
    return reader(name).getDouble();
  }

  /**
   * A boolean column.
   *
   * @throws IllegalStateException when the value is NULL, unavailable or of another kind
   */
  public boolean getBoolean(String name) {
    return reader(name).getBoolean();
  }

  /**
   * A text column (text, varchar, char, enums, and types captured as text), or null for SQL NULL.
   *
   * @throws IllegalStateException when the value is unavailable or of another kind (a numeric is
   *     {@link #getDecimal}, not text)
   */
  public String getString(String name) {
    return reader(name).getString();
  }

  /**
   * An exact decimal (numeric, decimal), or null for SQL NULL.
   *
   * @throws IllegalStateException when the value is unavailable, of another kind, or 'NaN' / 'Infinity' (which
   *     a BigDecimal cannot hold: read {@code value(name).getDecimalValue()})
   */
  public BigDecimal getDecimal(String name) {
    return reader(name).getDecimal();
  }

  /**
   * The instant of a timestamp with time zone (timestamptz), or null for SQL NULL. BC instants are exact
   * (proleptic Gregorian).
   *
   * @throws IllegalStateException when the value is unavailable, of another kind, a timestamp without time zone
   *     ({@link #getLocalDateTime}) or 'infinity' ({@link #isInfinite})
   */
  public Instant getInstant(String name) {
    return reader(name).getInstant();
  }

  /**
   * A timestamp with time zone as an {@link OffsetDateTime} at UTC, or null for SQL NULL.
   *
   * @throws IllegalStateException as {@link #getInstant}
   */
  public OffsetDateTime getOffsetDateTime(String name) {
    Instant i = reader(name).getInstant();
    return i == null ? null : i.atOffset(ZoneOffset.UTC);
  }

  /**
   * The wall-clock time of a timestamp without time zone, or null for SQL NULL.
   *
   * @throws IllegalStateException when the value is unavailable, of another kind, a timestamptz
   *     ({@link #getInstant}) or 'infinity' ({@link #isInfinite})
   */
  public LocalDateTime getLocalDateTime(String name) {
    return reader(name).getLocalDateTime();
  }

  /**
   * A date, or null for SQL NULL; BC dates are exact (proleptic Gregorian, year 0 is 1 BC).
   *
   * @throws IllegalStateException when the value is unavailable, of another kind or 'infinity' ({@link #isInfinite})
   */
  public LocalDate getDate(String name) {
    return reader(name).getDate();
  }

  /**
   * A time of day (time without time zone), or null for SQL NULL.
   *
   * @throws IllegalStateException when the value is unavailable or of another kind
   */
  public LocalTime getTime(String name) {
    return reader(name).getTime();
  }

  /**
   * A JSON document (json, jsonb) as its text, or null for SQL NULL.
   *
   * @throws IllegalStateException when the value is unavailable or of another kind
   */
  public String getJson(String name) {
    return reader(name).getJson();
  }

  /**
   * A binary column (bytea), a copy, or null for SQL NULL.
   *
   * @throws IllegalStateException when the value is unavailable or of another kind
   */
  public byte[] getBytes(String name) {
    return reader(name).getBytes();
  }

  /**
   * A uuid column, or null for SQL NULL.
   *
   * @throws IllegalStateException when the value is unavailable or of another kind
   */
  public UUID getUuid(String name) {
    return reader(name).getUuid();
  }

  /**
   * An array column's elements (each a {@link Value} of the column's element kind), or null for SQL NULL.
   *
   * @throws IllegalStateException when the value is unavailable or of another kind
   */
  public List<Value> getArray(String name) {
    return reader(name).getArray();
  }

  private ColumnReader reader(String name) {
    int i = indexOf(name);
    return new ColumnReader(table, table.getColumns(i), values.get(i));
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

  /** {@code {id=42, amount=12.30, note=<unavailable>}}: each value in a short form, for logs and examples. */
  @Override
  public String toString() {
    if (!isPresent()) {
      return "(absent)";
    }
    StringBuilder b = new StringBuilder("{");
    for (int i = 0; i < values.size(); i++) {
      if (i > 0) {
        b.append(", ");
      }
      b.append(i < table.getColumnsCount() ? table.getColumns(i).getName() : "#" + i).append('=')
          .append(shortText(values.get(i)));
    }
    return b.append('}').toString();
  }

  private static String shortText(Value v) {
    return switch (v.getKindCase()) {
      case NULL_VALUE -> "null";
      case UNAVAILABLE -> "<unavailable>";
      case BOOL_VALUE -> Boolean.toString(v.getBoolValue());
      case INT64_VALUE -> Long.toString(v.getInt64Value());
      case DOUBLE_VALUE -> Double.toString(v.getDoubleValue());
      case DECIMAL_VALUE -> v.getDecimalValue();
      case STRING_VALUE -> v.getStringValue();
      case JSON_VALUE -> v.getJsonValue();
      case DATE_VALUE -> v.getDateValue() == ColumnReader.DATE_INFINITY ? "infinity"
          : v.getDateValue() == ColumnReader.DATE_MINUS_INFINITY ? "-infinity"
          : java.time.LocalDate.ofEpochDay(v.getDateValue()).toString();
      case TIMESTAMP_VALUE -> TimestampSpecials.isSpecial(v.getTimestampValue())
          ? TimestampSpecials.name(v.getTimestampValue())
          : TimestampSpecials.instantOf(v.getTimestampValue()).toString()
              .replace("Z", v.getTimestampValue().getWithZone() ? "Z" : "");
      case TIME_MICROS_VALUE -> v.getTimeMicrosValue() >= 0 && v.getTimeMicrosValue() < ColumnReader.MICROS_PER_DAY
          ? LocalTime.ofNanoOfDay(v.getTimeMicrosValue() * 1000).toString()
          : v.getTimeMicrosValue() == ColumnReader.MICROS_PER_DAY ? "24:00" : "<time " + v.getTimeMicrosValue() + " us>";
      case BYTES_VALUE -> "<" + v.getBytesValue().size() + " bytes>";
      case UUID_VALUE -> v.getUuidValue().size() == 16 ? new UUID(v.getUuidValue().asReadOnlyByteBuffer().getLong(),
          v.getUuidValue().asReadOnlyByteBuffer().getLong(8)).toString() : "<uuid>";
      case ARRAY_VALUE -> v.getArrayValue().getElementsList().stream().map(RowImage::shortText).toList().toString();
      case KIND_NOT_SET -> "<unset>";
    };
  }
}
