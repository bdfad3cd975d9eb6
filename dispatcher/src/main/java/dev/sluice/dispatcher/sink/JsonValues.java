package dev.sluice.dispatcher.sink;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.sluice.api.v1.Value;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Base64;

/**
 * JSON forms of {@link Value}s: numbers stay numbers (NaN and infinities become strings), decimals are
 * strings (exact), bytes are base64, dates and times are ISO-8601 text ({@code Z} for instants; astronomical
 * years, so {@code -4712-01-01} is 4713-01-01 BC; PostgreSQL's infinities are the strings {@code infinity}
 * and {@code -infinity}), JSON documents are embedded as JSON, arrays are arrays.
 */
final class JsonValues {

  static final JsonFactory FACTORY = new JsonFactory();

  private JsonValues() {}

  static void write(JsonGenerator g, Value v) throws IOException {
    switch (v.getKindCase()) {
      case NULL_VALUE, KIND_NOT_SET, UNAVAILABLE -> g.writeNull();
      case BOOL_VALUE -> g.writeBoolean(v.getBoolValue());
      case INT64_VALUE -> g.writeNumber(v.getInt64Value());
      case DOUBLE_VALUE -> {
        double d = v.getDoubleValue();
        if (Double.isFinite(d)) {
          g.writeNumber(d);
        } else {
          g.writeString(Double.toString(d));
        }
      }
      case DECIMAL_VALUE -> g.writeString(v.getDecimalValue());
      case STRING_VALUE -> g.writeString(v.getStringValue());
      case BYTES_VALUE -> g.writeString(Base64.getEncoder().encodeToString(v.getBytesValue().toByteArray()));
      case TIMESTAMP_VALUE -> g.writeString(ValueText.isoTimestamp(v.getTimestampValue()));
      case DATE_VALUE -> g.writeString(ValueText.isoDate(v.getDateValue()));
      case TIME_MICROS_VALUE -> g.writeString(ValueText.time(v.getTimeMicrosValue()));
      case JSON_VALUE -> g.writeRawValue(v.getJsonValue());
      case UUID_VALUE -> g.writeString(ValueText.uuid(v.getUuidValue()));
      case ARRAY_VALUE -> {
        g.writeStartArray();
        for (Value e : v.getArrayValue().getElementsList()) {
          write(g, e);
        }
        g.writeEndArray();
      }
    }
  }

  /** The JSON text of an array value (MySQL has no arrays; they are stored as JSON). */
  static String arrayJson(Value v) {
    StringWriter out = new StringWriter();
    try (JsonGenerator g = FACTORY.createGenerator(out)) {
      write(g, v);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }
}
