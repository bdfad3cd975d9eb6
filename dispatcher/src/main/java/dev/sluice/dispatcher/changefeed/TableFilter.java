package dev.sluice.dispatcher.changefeed;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Which tables a changefeed follows: glob rules on {@code "schema.table"}. A rule without {@code !}
 * includes, a rule with {@code !} excludes; a table is followed when at least one include matches and
 * no exclude does (order does not matter). {@code *} matches any run of characters except the dot,
 * {@code ?} one such character; names are compared as the source spells them (case-sensitive).
 *
 * <pre>{@code
 * TableFilter f = TableFilter.of("public.*", "sales.orders", "!public.tmp_*");
 * f.matches("public", "users");     // true
 * f.matches("public", "tmp_load");  // false
 * }</pre>
 */
public final class TableFilter {

  private static final Pattern RULE = Pattern.compile("!?[^.\\s]+\\.[^.\\s]+");

  private final List<String> rules;
  private final List<Pattern> includes = new ArrayList<>();
  private final List<Pattern> excludes = new ArrayList<>();

  private TableFilter(List<String> rules) {
    this.rules = List.copyOf(rules);
    for (String rule : rules) {
      if (rule == null || !RULE.matcher(rule).matches()) {
        throw new IllegalArgumentException("table filter rule must be [!]schema.table with globs * and ?, got \""
            + rule + "\"");
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

  public static TableFilter of(List<String> rules) {
    return new TableFilter(rules);
  }

  public boolean matches(String schema, String table) {
    return matches(schema + "." + table);
  }

  /** Whether {@code qualifiedName} ("schema.table") is followed. */
  public boolean matches(String qualifiedName) {
    return includes.stream().anyMatch(p -> p.matcher(qualifiedName).matches())
        && excludes.stream().noneMatch(p -> p.matcher(qualifiedName).matches());
  }

  public List<String> rules() {
    return rules;
  }

  private static Pattern glob(String glob) {
    StringBuilder re = new StringBuilder();
    for (char c : glob.toCharArray()) {
      switch (c) {
        case '*' -> re.append("[^.]*");
        case '?' -> re.append("[^.]");
        default -> re.append(Pattern.quote(String.valueOf(c)));
      }
    }
    return Pattern.compile(re.toString());
  }

  @Override
  public String toString() {
    return "TableFilter" + rules;
  }
}
