package dev.sluice.dispatcher.sink;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Splits PostgreSQL SQL text into its statements at the semicolons that end them, the way the server's
 * lexer sees them: not inside a string ({@code 'it''s'}, {@code E'a\'b'}), a quoted identifier
 * ({@code "a;b"}), a dollar-quoted body ({@code $fn$ ...; ... $fn$}, {@code $$...$$}), a line comment or a
 * (nested) block comment. A sink replays a captured statement only when the text is exactly one of them:
 * PostgreSQL's {@code current_query()} of a multi-statement simple query ({@code psql -c "ALTER ...;
 * UPDATE ...; ALTER ..."}) is the whole string, and running it again would repeat the other statements.
 * Pure.
 *
 * <pre>{@code
 * List<String> s = SqlStatements.split("ALTER TABLE t ADD c text; UPDATE t SET c = 'a;b'");   // two
 * }</pre>
 */
final class SqlStatements {

  private SqlStatements() {}

  /** The statements of {@code sql}, each stripped, without its semicolon; empty ones (comments only) left out. */
  static List<String> split(String sql) {
    List<String> out = new ArrayList<>();
    int start = 0;
    boolean content = false;
    int i = 0;
    int n = sql.length();
    while (i < n) {
      char c = sql.charAt(i);
      if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
        i = lineEnd(sql, i);
      } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
        i = blockCommentEnd(sql, i);
      } else if (c == ';') {
        add(out, sql.substring(start, i), content);
        start = i + 1;
        content = false;
        i++;
      } else {
        if (!Character.isWhitespace(c)) {
          content = true;
        }
        if (c == '\'') {
          boolean escapes = i > 0 && (sql.charAt(i - 1) == 'E' || sql.charAt(i - 1) == 'e')
              && (i < 2 || !isIdentifierPart(sql.charAt(i - 2)));
          i = quotedEnd(sql, i, '\'', escapes);
        } else if (c == '"') {
          i = quotedEnd(sql, i, '"', false);
        } else if (c == '$' && (i == 0 || !isIdentifierPart(sql.charAt(i - 1)))) {
          i = dollarQuotedEnd(sql, i);
        } else {
          i++;
        }
      }
    }
    add(out, sql.substring(start), content);
    return out;
  }

  /** Whether {@code sql} holds exactly one statement (a trailing semicolon and comments allowed). */
  static boolean isSingle(String sql) {
    return split(sql).size() == 1;
  }

  /**
   * The one statement of {@code sql} that starts with {@code keywords} (case-insensitive, any spacing, e.g.
   * {@code "CREATE INDEX"} also matches {@code CREATE UNIQUE INDEX} when given {@code "CREATE UNIQUE INDEX"}
   * too), or null when none or several do.
   */
  static String onlyStartingWith(String sql, List<String> keywords) {
    String found = null;
    for (String statement : split(sql)) {
      String head = withoutLeadingComments(statement).replaceAll("\\s+", " ").toUpperCase(Locale.ROOT);
      if (keywords.stream().anyMatch(k -> head.startsWith(k + " "))) {
        if (found != null) {
          return null;
        }
        found = statement;
      }
    }
    return found;
  }

  /**
   * The text of a captured DDL a same-dialect target may run: the query when it is one statement; for an
   * index change, the one CREATE / DROP INDEX statement among several (no table info describes indexes);
   * otherwise null, and the change is derived from the table info.
   */
  static String replayable(dev.sluice.dispatcher.DdlChange ddl) {
    String query = ddl.query();
    if (query.isBlank()) {
      return null;
    }
    if (isSingle(query)) {
      return query;
    }
    return switch (ddl.ddlType()) {
      case DDL_TYPE_CREATE_INDEX -> onlyStartingWith(query, List.of("CREATE INDEX", "CREATE UNIQUE INDEX"));
      case DDL_TYPE_DROP_INDEX -> onlyStartingWith(query, List.of("DROP INDEX"));
      default -> null;
    };
  }

  private static void add(List<String> out, String statement, boolean content) {
    if (content) {
      out.add(statement.strip());
    }
  }

  private static String withoutLeadingComments(String s) {
    String t = s.strip();
    while (t.startsWith("--") || t.startsWith("/*")) {
      t = t.substring(t.startsWith("--") ? Math.min(lineEnd(t, 0), t.length()) : blockCommentEnd(t, 0)).strip();
    }
    return t;
  }

  private static int lineEnd(String s, int from) {
    int nl = s.indexOf('\n', from);
    return nl < 0 ? s.length() : nl + 1;
  }

  /** After the block comment opening at {@code from}; PostgreSQL nests them. */
  private static int blockCommentEnd(String s, int from) {
    int depth = 0;
    int i = from;
    while (i < s.length()) {
      if (s.startsWith("/*", i)) {
        depth++;
        i += 2;
      } else if (s.startsWith("*/", i)) {
        depth--;
        i += 2;
        if (depth == 0) {
          return i;
        }
      } else {
        i++;
      }
    }
    return s.length();
  }

  /** After the quoted text opening at {@code from}: a doubled quote is one, a backslash escapes in E'...'. */
  private static int quotedEnd(String s, int from, char quote, boolean backslashEscapes) {
    int i = from + 1;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (backslashEscapes && c == '\\') {
        i += 2;
      } else if (c == quote) {
        if (i + 1 < s.length() && s.charAt(i + 1) == quote) {
          i += 2;
        } else {
          return i + 1;
        }
      } else {
        i++;
      }
    }
    return s.length();
  }

  /** After the dollar-quoted body opening at {@code from} ({@code $tag$ ... $tag$}); a lone {@code $} or {@code $1} is just that. */
  private static int dollarQuotedEnd(String s, int from) {
    int i = from + 1;
    while (i < s.length() && isIdentifierPart(s.charAt(i)) && s.charAt(i) != '$') {
      i++;
    }
    if (i >= s.length() || s.charAt(i) != '$' || (i > from + 1 && Character.isDigit(s.charAt(from + 1)))) {
      return from + 1;   // a parameter ($1) or a $ in an identifier: not a quote
    }
    String tag = s.substring(from, i + 1);
    int end = s.indexOf(tag, i + 1);
    return end < 0 ? s.length() : end + tag.length();
  }

  private static boolean isIdentifierPart(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == '$';
  }
}
