package dev.sluice.broker.capture;

import dev.sluice.api.v1.ColumnCodec;
import dev.sluice.api.v1.TextCodec;
import dev.sluice.api.v1.ValueKind;
import java.util.Objects;

/**
 * A PostgreSQL type as capture decodes it: how its text form is parsed and which {@code Value} kind
 * it becomes. Domains resolve to their base type, enums to {@link Codec#ENUM}, arrays carry their
 * element type.
 *
 * <pre>{@code
 * PgType ints = PgType.array(1007, "_int4", PgType.builtin(23, "int4", PgType.Codec.INT));
 * ValueKind k = ints.kind();   // VALUE_KIND_ARRAY, elementKind() = VALUE_KIND_INT64
 * }</pre>
 *
 * @param oid     the type oid
 * @param name    the type name (for logs)
 * @param codec   how the text form is parsed
 * @param element   the element type of an array, {@code null} otherwise
 * @param delimiter what separates values of this type as array elements ({@code pg_type.typdelim}):
 *                  {@code ';'} for {@code box}, {@code ','} for every other built-in type
 */
record PgType(int oid, String name, Codec codec, PgType element, char delimiter) {

  /** {@code box}, the one built-in type whose array elements are separated by {@code ';'}. */
  static final int BOX_OID = 603;

  /** How a type's text output is turned into a {@code Value}. */
  enum Codec {
    BOOL(ValueKind.VALUE_KIND_BOOL),
    INT(ValueKind.VALUE_KIND_INT64),
    FLOAT4(ValueKind.VALUE_KIND_DOUBLE),
    FLOAT8(ValueKind.VALUE_KIND_DOUBLE),
    NUMERIC(ValueKind.VALUE_KIND_DECIMAL),
    TEXT(ValueKind.VALUE_KIND_STRING),
    ENUM(ValueKind.VALUE_KIND_STRING),
    BYTEA(ValueKind.VALUE_KIND_BYTES),
    DATE(ValueKind.VALUE_KIND_DATE),
    TIME(ValueKind.VALUE_KIND_TIME),
    TIMESTAMP(ValueKind.VALUE_KIND_TIMESTAMP),
    TIMESTAMPTZ(ValueKind.VALUE_KIND_TIMESTAMP_TZ),
    UUID(ValueKind.VALUE_KIND_UUID),
    JSON(ValueKind.VALUE_KIND_JSON),
    ARRAY(ValueKind.VALUE_KIND_ARRAY),
    /** No typed mapping: captured as text and counted. */
    FALLBACK(ValueKind.VALUE_KIND_TEXT_FALLBACK);

    private final ValueKind kind;
    private final TextCodec text;

    Codec(ValueKind kind) {
      this.kind = kind;
      this.text = TextCodec.valueOf("TEXT_CODEC_" + name());
    }

    ValueKind kind() {
      return kind;
    }

    /** The protocol's name of this codec (CopyRows' ColumnCodec), which {@code PgText} parses by. */
    TextCodec text() {
      return text;
    }
  }

  PgType {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(codec, "codec");
    if ((codec == Codec.ARRAY) != (element != null)) {
      throw new IllegalArgumentException("type " + name + ": an element type is required for arrays and only for them");
    }
  }

  /** A type with the built-in delimiter of its oid (the catalog gives it for other types). */
  PgType(int oid, String name, Codec codec, PgType element) {
    this(oid, name, codec, element, oid == BOX_OID ? ';' : ',');
  }

  static PgType builtin(int oid, String name, Codec codec) {
    return new PgType(oid, name, codec, null);
  }

  static PgType array(int oid, String name, PgType element) {
    return new PgType(oid, name, Codec.ARRAY, element);
  }

  ValueKind kind() {
    return codec.kind();
  }

  /** The element kind for arrays, {@code VALUE_KIND_UNSPECIFIED} otherwise. */
  ValueKind elementKind() {
    return element == null ? ValueKind.VALUE_KIND_UNSPECIFIED : element.kind();
  }

  /** How a client reads this type's text: its codec, and for an array its elements' codec and delimiter. */
  ColumnCodec columnCodec() {
    ColumnCodec.Builder c = ColumnCodec.newBuilder().setCodec(codec.text());
    if (element != null) {
      c.setElementCodec(element.codec().text()).setElementDelimiter(String.valueOf(element.delimiter()));
    }
    return c.build();
  }

  /** True when values of this type (or its elements) are captured as fallback text. */
  boolean isFallback() {
    return codec == Codec.FALLBACK || (element != null && element.isFallback());
  }
}
