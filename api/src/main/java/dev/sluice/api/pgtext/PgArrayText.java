package dev.sluice.api.pgtext;

import dev.sluice.api.v1.ArrayValue;
import dev.sluice.api.v1.TextCodec;
import dev.sluice.api.v1.Value;

/**
 * Parses PostgreSQL's array output ({@code {1,2,NULL}}, {@code {{1,2},{3,4}}}, {@code {"a b","c\"d"}},
 * {@code [0:1]={1,2}}) into nested {@link ArrayValue}s whose leaves are parsed by the element type.
 * An unquoted {@code NULL} is a null element; lower bounds other than 1 are kept in the outermost
 * {@code ArrayValue}'s {@code lower_bounds} ({@code [0:1]={1,2}}: [0]). Elements are separated by the
 * element type's delimiter: {@code ','}, or {@code ';'} for {@code box} ({@code {(1,1),(0,0);(2,2),(1,1)}}).
 *
 * <pre>{@code
 * Value v = PgArrayText.parse(TextCodec.TEXT_CODEC_INT, ',', "{{1,2},{3,NULL}}");   // [[1, 2], [3, null]]
 * }</pre>
 */
final class PgArrayText {

  private final TextCodec element;
  private final char delimiter;
  private final String s;
  private int pos;

  private PgArrayText(TextCodec element, char delimiter, String s) {
    this.element = element;
    this.delimiter = delimiter;
    this.s = s;
  }

  static Value parse(TextCodec element, char delimiter, String text) {
    PgArrayText p = new PgArrayText(element, delimiter, text);
    java.util.List<Integer> lowerBounds = java.util.List.of();
    if (text.startsWith("[")) {
      int eq = text.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException("array dimensions without '='");
      }
      lowerBounds = lowerBounds(text.substring(0, eq));
      p.pos = eq + 1;
    }
    Value v = p.array();
    if (p.pos != text.length()) {
      throw new IllegalArgumentException("trailing text after the array at " + p.pos);
    }
    if (lowerBounds.stream().allMatch(b -> b == 1)) {
      return v;
    }
    return Value.newBuilder().setArrayValue(v.getArrayValue().toBuilder().addAllLowerBounds(lowerBounds)).build();
  }

  /** The lower bound of each dimension of {@code [l1:u1][l2:u2]}, outermost first. */
  private static java.util.List<Integer> lowerBounds(String dimensions) {
    java.util.List<Integer> out = new java.util.ArrayList<>();
    int i = 0;
    while (i < dimensions.length()) {
      int colon = dimensions.indexOf(':', i);
      int close = dimensions.indexOf(']', i);
      if (dimensions.charAt(i) != '[' || colon < 0 || close < colon) {
        throw new IllegalArgumentException("array dimensions '" + dimensions + "' are not [lower:upper]...");
      }
      out.add(Integer.parseInt(dimensions.substring(i + 1, colon)));
      i = close + 1;
    }
    return out;
  }

  private Value array() {
    expect('{');
    ArrayValue.Builder b = ArrayValue.newBuilder();
    if (peek() == '}') {
      pos++;
      return Value.newBuilder().setArrayValue(b).build();
    }
    while (true) {
      b.addElements(peek() == '{' ? array() : item());
      char c = next();
      if (c == '}') {
        return Value.newBuilder().setArrayValue(b).build();
      }
      if (c != delimiter) {
        throw new IllegalArgumentException("expected '" + delimiter + "' or '}' at " + (pos - 1) + ", got '" + c + "'");
      }
    }
  }

  private Value item() {
    StringBuilder text = new StringBuilder();
    if (peek() == '"') {
      pos++;
      while (true) {
        char c = next();
        if (c == '"') {
          break;
        }
        text.append(c == '\\' ? next() : c);
      }
      return PgText.parse(element, TextCodec.TEXT_CODEC_UNSPECIFIED, ',', text.toString());
    }
    while (peek() != delimiter && peek() != '}') {
      char c = next();
      text.append(c == '\\' ? next() : c);
    }
    String raw = text.toString();
    return raw.equalsIgnoreCase("NULL") ? PgText.NULL : PgText.parse(element, TextCodec.TEXT_CODEC_UNSPECIFIED, ',', raw);
  }

  private void expect(char c) {
    char got = next();
    if (got != c) {
      throw new IllegalArgumentException("expected '" + c + "' at " + (pos - 1) + ", got '" + got + "'");
    }
  }

  private char peek() {
    if (pos >= s.length()) {
      throw new IllegalArgumentException("array text ends early");
    }
    return s.charAt(pos);
  }

  private char next() {
    char c = peek();
    pos++;
    return c;
  }
}
