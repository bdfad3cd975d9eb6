package dev.sluice.dispatcher.sink;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A column's default as a literal another dialect takes, for a derived {@code ADD COLUMN}: the rows a table
 * has when the column is added get the default there, so a constant default must reach the target
 * (without it MySQL fills a NOT NULL column with 0 or ''). Numbers, string literals (PostgreSQL's
 * {@code 'new'::text}), booleans; anything else (a function, an expression) is not translated.
 *
 * <pre>{@code
 * DefaultLiteral.of("'new'::text", Dialect.MYSQL);   // Optional["'new'"]
 * DefaultLiteral.of("now()", Dialect.MYSQL);         // empty
 * }</pre>
 */
final class DefaultLiteral {

  private static final Pattern NUMBER = Pattern.compile("\\(?\\s*'?(-?\\d+(?:\\.\\d+)?(?:[eE][-+]?\\d+)?)'?\\s*\\)?"
      + "(?:::[\\w\\s.\"()]+)?");
  private static final Pattern STRING = Pattern.compile("'((?:[^']|'')*)'(?:::[\\w\\s.\"()\\[\\]]+)?");

  private DefaultLiteral() {}

  static Optional<String> of(String sourceExpr, Dialect target) {
    if (sourceExpr == null || sourceExpr.isBlank()) {
      return Optional.empty();
    }
    String e = sourceExpr.strip();
    Matcher n = NUMBER.matcher(e);
    if (n.matches()) {
      return Optional.of(n.group(1));
    }
    String lower = e.toLowerCase(Locale.ROOT);
    if (lower.equals("true") || lower.equals("false")) {
      return Optional.of(lower.toUpperCase(Locale.ROOT));
    }
    Matcher s = STRING.matcher(e);
    if (s.matches()) {
      String text = s.group(1).replace("''", "'");
      String quoted = text.replace("'", "''");
      return Optional.of("'" + (target == Dialect.MYSQL ? quoted.replace("\\", "\\\\") : quoted) + "'");
    }
    return Optional.empty();
  }
}
