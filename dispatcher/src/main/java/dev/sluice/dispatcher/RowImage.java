package dev.sluice.dispatcher;

import dev.sluice.api.pgtext.CopyText;
import dev.sluice.api.v1.ColumnCodec;
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
import java.util.Objects;
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
 *
 * <p>A snapshot's READ row may be backed by a {@link CopyLine} (the broker offered the copy-text feature):
 * {@link #copyLine()} gives the line to a sink that loads it as it is, and the first read of a value decodes the
 * whole line, once, into the same values the row would hold had it come as values ({@link #size()} does not
 * decode). Either way the image reads, compares ({@link #equals}) and prints alike.
 *
 * <p>Concurrency: immutable to its readers; a line-backed image may be read from several threads (each may decode
 * the line the first time, to equal values).
 */
public final class RowImage {

  private static final RowImage ABSENT = new RowImage(TableInfo.getDefaultInstance(), List.of(), null, null, 0);

  private final TableInfo table;
  /** The values of an image that came as values; null when line-backed. */
  private final List<Value> given;
  private final CopyLine line;
  /** How each column of {@link #line} reads (one per column); null when the image came as values. */
  private final List<ColumnCodec> columns;
  /** Row seq of the line, for the message of a value that does not decode. */
  private final long rowSeq;
  /** The line's values, decoded on first use; an immutable list, so a racing reader sees it whole or not at all. */
  private List<Value> decoded;

  private RowImage(TableInfo table, List<Value> given, CopyLine line, List<ColumnCodec> columns, long rowSeq) {
    this.table = table;
    this.given = given;
    this.line = line;
    this.columns = columns;
    this.rowSeq = rowSeq;
  }

  /** The image of {@code values} over {@code table}; empty values make an absent image. */
  public static RowImage of(TableInfo table, List<Value> values) {
    return values.isEmpty() ? ABSENT : new RowImage(table, values, null, null, 0);
  }

  /**
   * The image of a COPY text line over {@code table}, its values decoded on first use.
   *
   * <pre>{@code
   * byte[] lines = "1\tAda\n2\t\\N\n".getBytes(UTF_8);
   * RowImage second = RowImage.ofCopyLine(table, codecs, new CopyLine(lines, 6, 10), 1);
   * second.isNull("name");   // true
   * }</pre>
   *
   * @param columns how each column's text reads into a value, one per column of {@code table} in its order (give
   *                every line of a batch the same {@code List.copyOf} list: it is then kept, not copied per line)
   * @param rowSeq  the row's seq in its transaction, named when a value does not decode
   */
  public static RowImage ofCopyLine(TableInfo table, List<ColumnCodec> columns, CopyLine line, long rowSeq) {
    if (columns.size() != table.getColumnsCount()) {
      throw new IllegalArgumentException("a COPY line of " + table.getSchemaName() + "." + table.getTableName()
          + " reads with one codec per column: " + columns.size() + " codecs for " + table.getColumnsCount()
          + " columns");
    }
    return new RowImage(table, null, Objects.requireNonNull(line, "line"), List.copyOf(columns), rowSeq);
  }

  /**
   * The COPY text line backing this image, or null when it came as values. A sink that loads PostgreSQL by COPY
   * writes the line as it is (it is the upstream's own output); nothing else needs it.
   *
   * <pre>{@code
   * CopyLine line = row.after().copyLine();
   * if (line != null && row.after().size() == table.getColumnsCount()) {
   *   copyIn.writeToCopy(line.buffer(), line.offset(), line.lengthWithNewline());
   * }
   * }</pre>
   */
  public CopyLine copyLine() {
    return line;
  }

  /** Whether the change has this image (an INSERT has no before image, a DELETE no after image). */
  public boolean isPresent() {
    return line != null || !given.isEmpty();
  }

  /** Number of values (the column count of the table info in force when present); a COPY line is not decoded. */
  public int size() {
    return line != null ? columns.size() : given.size();
  }

  /**
   * The value at column position {@code i}.
   *
   * @throws IllegalArgumentException when the image is a COPY line of another width than its table (the message
   *     names the table and the row seq)
   */
  public Value value(int i) {
    return values().get(i);
  }

  /** The value of column {@code name}; throws naming the column and table when there is none. */
  public Value value(String name) {
    return values().get(indexOf(name));
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
    return new ColumnReader(table, table.getColumns(i), values().get(i));
  }

  /** Column name to value, in column order. */
  public Map<String, Value> asMap() {
    List<Value> values = values();
    Map<String, Value> map = new LinkedHashMap<>();
    for (int i = 0; i < values.size() && i < table.getColumnsCount(); i++) {
      map.put(table.getColumns(i).getName(), values.get(i));
    }
    return Collections.unmodifiableMap(map);
  }

  /**
   * The raw positional values (a COPY line's decoded on first use).
   *
   * @throws IllegalArgumentException when the image is a COPY line of another width than its table (the message
   *     names the table and the row seq)
   */
  public List<Value> values() {
    if (given != null) {
      return given;
    }
    List<Value> v = decoded;
    if (v == null) {
      v = List.copyOf(decode());
      decoded = v;
    }
    return v;
  }

  /**
   * The line's values, or an IllegalArgumentException naming the table and row when the line has another number of
   * fields than the table columns (a value its codec refuses is kept as its text, as capture keeps it).
   */
  private List<Value> decode() {
    try {
      return CopyText.values(line.buffer(), line.offset(), line.end(), columns);
    } catch (RuntimeException e) {
      throw undecodable("the line", e);
    }
  }

  private IllegalArgumentException undecodable(String what, RuntimeException cause) {
    return new IllegalArgumentException("row seq " + rowSeq + " of " + table.getSchemaName() + "."
        + table.getTableName() + ": " + what + " of its COPY line does not decode: " + cause.getMessage(), cause);
  }

  private int indexOf(String name) {
    List<ColumnInfo> infos = table.getColumnsList();
    for (int i = 0; i < infos.size(); i++) {
      if (infos.get(i).getName().equals(name)) {
        if (i >= size()) {
          throw new NoSuchElementException("column " + name + " of " + table.getSchemaName() + "."
              + table.getTableName() + " is not in this image (" + size() + " values)");
        }
        return i;
      }
    }
    throw new NoSuchElementException("no column " + name + " in " + table.getSchemaName() + "."
        + table.getTableName());
  }

  /**
   * Equal when over an equal table info with equal values, whether each came as values or as a COPY line (which
   * this decodes).
   */
  @Override
  public boolean equals(Object o) {
    return o == this || o instanceof RowImage other && table.equals(other.table) && values().equals(other.values());
  }

  /** Consistent with {@link #equals}: the same for a line-backed image and the typed one with equal values. */
  @Override
  public int hashCode() {
    return 31 * table.hashCode() + values().hashCode();
  }

  /**
   * {@code {id=42, amount=12.30, note=<unavailable>}}: each value in a short form, for logs and examples. A COPY
   * line whose values do not decode prints as its text, with why.
   */
  @Override
  public String toString() {
    if (!isPresent()) {
      return "(absent)";
    }
    List<Value> values;
    try {
      values = values();
    } catch (IllegalArgumentException e) {
      return "(COPY line \"" + line + "\": " + e.getMessage() + ")";
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
