package dev.sluice.dispatcher.sink;

import dev.sluice.api.v1.Value;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Bounded error texts of a JDBC target: a driver's message can carry the whole failing statement
 * with its values (PgJDBC's "Batch entry 0 INSERT ... VALUES ('100 KB of text') ... was aborted"),
 * which then fills logs, status pages and the changefeed record. Here quoted literals longer than
 * {@value #VALUE_CHARS} characters and runs without spaces longer than {@value #TOKEN_CHARS} are
 * shortened to their first {@value #VALUE_CHARS} characters with their length, and
 * the whole text is cut at {@value #MAX_CHARS}; what identifies the row (table, key, column) is added
 * by the caller in full, so it is never cut away.
 *
 * <pre>{@code
 * SqlErrorText.cap("VALUES ('" + "x".repeat(100_000) + "')");   // VALUES ('xxxx…[100000 chars]')
 * SqlErrorText.value(Value.newBuilder().setInt64Value(42).build());  // 42
 * }</pre>
 */
final class SqlErrorText {

  /** Characters kept of one value or quoted literal. */
  static final int VALUE_CHARS = 64;
  /** Characters kept of a run without spaces or quotes (a URL stays whole, an unquoted value does not). */
  static final int TOKEN_CHARS = 256;
  /** Characters kept of a driver's message. */
  static final int MAX_CHARS = 1000;

  private static final String NOISE = "Call getNextException to see other errors in the batch.";
  private static final String BATCH_ENTRY = "Batch entry ";

  private SqlErrorText() {}

  /** {@code text} with long literals and tokens shortened and the whole cut at {@value #MAX_CHARS}. */
  static String cap(String text) {
    if (text == null) {
      return "";
    }
    StringBuilder out = new StringBuilder(Math.min(text.length(), MAX_CHARS + 64));
    int i = 0;
    int n = text.length();
    // a scan, not a regex: a repeated alternation over 100 KB overflows the regex engine's stack
    while (i < n && out.length() <= MAX_CHARS) {
      char c = text.charAt(i);
      if (c == '\'') {
        int end = closingQuote(text, i + 1);
        String body = text.substring(i + 1, end < 0 ? n : end);
        out.append('\'').append(shorten(body));
        if (end >= 0) {
          out.append('\'');
        }
        i = end < 0 ? n : end + 1;
      } else if (Character.isWhitespace(c)) {
        out.append(c);
        i++;
      } else {
        int end = i;
        while (end < n && text.charAt(end) != '\'' && !Character.isWhitespace(text.charAt(end))) {
          end++;
        }
        String token = text.substring(i, end);
        out.append(token.length() <= TOKEN_CHARS ? token : token.substring(0, VALUE_CHARS) + "…[" + token.length()
            + " chars]");
        i = end;
      }
    }
    if (i < n || out.length() > MAX_CHARS) {
      out.setLength(Math.min(out.length(), MAX_CHARS));
      out.append("…[").append(n).append(" chars in all]");
    }
    return out.toString();
  }

  /** The index of the quote closing a literal that starts at {@code from} ('' is an escaped quote), or -1. */
  private static int closingQuote(String text, int from) {
    for (int j = from; j < text.length(); j++) {
      if (text.charAt(j) == '\'') {
        if (j + 1 < text.length() && text.charAt(j + 1) == '\'') {
          j++;
        } else {
          return j;
        }
      }
    }
    return -1;
  }

  private static String shorten(String s) {
    return s.length() <= VALUE_CHARS ? s : s.substring(0, VALUE_CHARS) + "…[" + s.length() + " chars]";
  }

  /**
   * The driver's own words for {@code e}: its message and those of the chained exceptions
   * ({@code getNextException}, causes), each once, capped. The server's errors come first and a batch's
   * statement text ("Batch entry 0 INSERT ...") last, so a long statement never cuts away the cause.
   */
  static String of(SQLException e) {
    List<String> messages = new ArrayList<>();
    List<Throwable> seen = new ArrayList<>();
    for (SQLException x = e; x != null && seen.size() < 8; x = x.getNextException()) {
      for (Throwable t = x; t != null && !seen.contains(t) && seen.size() < 8; t = t.getCause()) {
        seen.add(t);
        String m = t.getMessage();
        String part = m == null ? "" : m.replace(NOISE, "").strip();
        if (!part.isEmpty()) {
          messages.add(part);
        }
      }
    }
    List<String> ordered = new ArrayList<>(messages.stream().filter(m -> !m.startsWith(BATCH_ENTRY)).toList());
    ordered.addAll(messages.stream().filter(m -> m.startsWith(BATCH_ENTRY)).toList());
    Set<String> parts = new LinkedHashSet<>();
    for (String part : ordered) {
      String kept = part;
      for (String earlier : parts) {   // PgJDBC repeats the server's error in the batch error and in the next one
        kept = kept.equals(earlier) || !kept.contains(earlier) ? kept : kept.replace(earlier, "(above)");
      }
      String k = kept;
      if (parts.stream().noneMatch(p -> p.contains(k))) {
        parts.add(k);
      }
    }
    return cap(String.join(" / ", parts));
  }

  /**
   * {@code e} itself when its text is short, else a copy (same SQL state, vendor code and stack
   * trace, no cause) whose message is {@link #of}: the cause to keep in an error that gets logged.
   */
  static SQLException capped(SQLException e) {
    int chars = 0;
    int seen = 0;
    for (SQLException x = e; x != null && seen < 16; x = x.getNextException()) {
      for (Throwable t = x; t != null && seen < 16; t = t.getCause(), seen++) {
        chars += t.getMessage() == null ? 0 : t.getMessage().length();
        if (chars > MAX_CHARS) {
          SQLException copy = new SQLException(of(e), sqlState(e), e.getErrorCode());
          copy.setStackTrace(e.getStackTrace());
          return copy;
        }
      }
    }
    return e;
  }

  /** The first SQL state of {@code e}'s chain ({@code getNextException}, causes), or null. */
  static String sqlState(SQLException e) {
    for (SQLException x = e; x != null; x = x.getNextException()) {
      if (x.getSQLState() != null) {
        return x.getSQLState();
      }
      if (x.getCause() instanceof SQLException c && c.getSQLState() != null) {
        return c.getSQLState();
      }
    }
    return null;
  }

  /** One value as a message shows it: its text, cut at {@value #VALUE_CHARS} characters with its length. */
  static String value(Value v) {
    if (v.hasNullValue() || v.getKindCase() == Value.KindCase.KIND_NOT_SET) {
      return "NULL";
    }
    if (v.hasUnavailable()) {
      return "(unavailable)";
    }
    String text;
    try {
      text = ValueText.scalar(v);
    } catch (IllegalArgumentException e) {
      text = v.getKindCase().name();
    }
    return shorten(text);
  }
}
