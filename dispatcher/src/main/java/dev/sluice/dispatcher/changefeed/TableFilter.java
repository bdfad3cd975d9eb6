package dev.sluice.dispatcher.changefeed;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Which tables a changefeed follows: glob rules on {@code "schema.table"}. A rule without {@code !}
 * includes, a rule with {@code !} excludes; a table is followed when at least one include matches and
 * no exclude does (order does not matter). A rule's one dot parts the schema from the table; {@code *}
 * matches any run of characters of its part, {@code ?} one character (a table named {@code a.b} in
 * {@code public} is matched by {@code public.*}); names are compared as the source spells them (case-sensitive, spaces
 * inside a name included: {@code Mixed.Order Items}). Rules
 * are globs, not regular expressions: {@code ( ) [ ] { } | ^ \} are refused (a rule such as
 * {@code demo.(x|y)} would otherwise silently match nothing); every other character is literal.
 *
 * <pre>{@code
 * TableFilter f = TableFilter.of("public.*", "sales.orders", "!public.tmp_*");
 * f.matches("public", "users");     // true
 * f.matches("public", "tmp_load");  // false
 * }</pre>
 */
public final class TableFilter {

  /** [!]schema.table: each part neither starts nor ends with a space, and may hold spaces (Mixed.Order Items). */
  private static final Pattern RULE = Pattern.compile("!?[^.\\s](?:[^.]*[^.\\s])?\\.[^.\\s](?:[^.]*[^.\\s])?");
  /** Characters of regular expressions that no glob rule means literally. */
  private static final String REGEX_ONLY = "()[]{}|^\\";

  private final List<String> rules;
  private final List<Glob> includes = new ArrayList<>();
  private final List<Glob> excludes = new ArrayList<>();

  private TableFilter(List<String> rules) {
    this.rules = List.copyOf(rules);
    for (String rule : rules) {
      if (rule == null || !RULE.matcher(rule).matches()) {
        throw new IllegalArgumentException("table filter rule must be [!]schema.table with globs * and ?, got \""
            + rule + "\"");
      }
      for (char c : rule.toCharArray()) {
        if (REGEX_ONLY.indexOf(c) >= 0) {
          throw new IllegalArgumentException("table filter rule \"" + rule + "\" is not a glob: '" + c + "' belongs to"
              + " regular expressions, which rules are not; a rule is [!]schema.table where * matches any run of"
              + " characters of its part and ? one character, every other character literally; list alternatives as"
              + " rules of their own (demo.x and demo.y, not demo.(x|y))");
        }
      }
      boolean exclude = rule.startsWith("!");
      (exclude ? excludes : includes).add(glob(exclude ? rule.substring(1) : rule));
    }
    if (includes.isEmpty()) {
      throw new IllegalArgumentException("table filter needs at least one include rule (such as \"public.*\"), got "
          + rules);
    }
  }

  /** Parses {@code rules}; throws naming the first bad rule. */
  public static TableFilter of(String... rules) {
    return new TableFilter(List.of(rules));
  }

  /** Parses {@code rules}; throws naming the first bad rule. */
  public static TableFilter of(List<String> rules) {
    return new TableFilter(rules);
  }

  /** Whether {@code schema.table} is followed. */
  public boolean matches(String schema, String table) {
    return includes.stream().anyMatch(g -> g.matches(schema, table))
        && excludes.stream().noneMatch(g -> g.matches(schema, table));
  }

  /**
   * Whether {@code qualifiedName} ("schema.table") is followed; a name with more than one dot (a dot inside the
   * schema's or the table's name) is matched as any of the ways it parts into schema and table.
   */
  public boolean matches(String qualifiedName) {
    return includes.stream().anyMatch(g -> g.matches(qualifiedName))
        && excludes.stream().noneMatch(g -> g.matches(qualifiedName));
  }

  /** The rules as given, includes and {@code !}excludes in order. */
  public List<String> rules() {
    return rules;
  }

  /**
   * The rules, as given ({@code !} on excludes), that match none of {@code qualifiedNames}: most likely a
   * typo, or a table that does not exist yet. In rule order.
   */
  public List<String> unmatchedRules(Collection<String> qualifiedNames) {
    List<String> out = new ArrayList<>();
    for (String rule : rules) {
      Glob g = glob(rule.startsWith("!") ? rule.substring(1) : rule);
      if (qualifiedNames.stream().noneMatch(g::matches)) {
        out.add(rule);
      }
    }
    return out;
  }

  /** A rule without its {@code !}: the schema's glob and the table's, parted at its one dot. */
  private static Glob glob(String rule) {
    int dot = rule.indexOf('.');
    return new Glob(part(rule.substring(0, dot)), part(rule.substring(dot + 1)));
  }

  private static Pattern part(String glob) {
    StringBuilder re = new StringBuilder();
    for (char c : glob.toCharArray()) {
      switch (c) {
        case '*' -> re.append(".*");
        case '?' -> re.append('.');
        default -> re.append(Pattern.quote(String.valueOf(c)));
      }
    }
    return Pattern.compile(re.toString(), Pattern.DOTALL);
  }

  /** One rule: a schema glob and a table glob. */
  private record Glob(Pattern schema, Pattern table) {

    boolean matches(String schemaName, String tableName) {
      return schema.matcher(schemaName).matches() && table.matcher(tableName).matches();
    }

    /** Tried at every dot of the name: schema and table names may hold dots themselves. */
    boolean matches(String qualifiedName) {
      for (int dot = qualifiedName.indexOf('.'); dot >= 0; dot = qualifiedName.indexOf('.', dot + 1)) {
        if (matches(qualifiedName.substring(0, dot), qualifiedName.substring(dot + 1))) {
          return true;
        }
      }
      return false;
    }
  }

  @Override
  public String toString() {
    return "TableFilter" + rules;
  }
}
