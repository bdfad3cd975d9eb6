package dev.sluice.broker.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Renders the key reference of docs/CONFIG.md from {@link ConfigKeys}: one table per section with
 * each key's environment variable, flag, default, type and meaning. The page keeps it between two
 * marker lines; a test fails when the page and the registry differ, and {@code main} rewrites it.
 *
 * <pre>{@code
 * String md = ConfigReference.markdown();
 * ConfigReference.main(new String[] {"docs/CONFIG.md"});   // rewrites the block between the markers
 * }</pre>
 */
public final class ConfigReference {

  public static final String BEGIN = "<!-- BEGIN KEYS: generated from ConfigKeys by ConfigReference; do not edit -->";
  public static final String END = "<!-- END KEYS -->";

  private ConfigReference() {}

  /** The tables, one per section, in registry order. */
  public static String markdown() {
    Map<String, List<Setting<?>>> sections = new LinkedHashMap<>();
    for (Setting<?> s : ConfigKeys.all()) {
      int dot = s.key().lastIndexOf('.');
      sections.computeIfAbsent(dot < 0 ? "" : s.key().substring(0, dot), k -> new java.util.ArrayList<>()).add(s);
    }
    StringBuilder b = new StringBuilder();
    sections.forEach((section, keys) -> {
      b.append("\n### ").append(section.isEmpty() ? "top level" : "`" + section + "`").append("\n\n");
      b.append("| key | environment variable | flag | default | type | meaning |\n");
      b.append("|---|---|---|---|---|---|\n");
      for (Setting<?> s : keys) {
        b.append("| `").append(s.key()).append("` | `").append(s.env()).append("` | ")
            .append(s.flag() == null ? "" : "`" + s.flag() + "`").append(" | ")
            .append(code(s.defaultShown())).append(" | ").append(s.type().name()).append(" | ")
            .append(escape(s.doc()))
            .append(s.runtime() ? " Runtime: `PATCH /api/v1/config`." : "")
            .append(s.secret() ? " Secret: shown as `***`." : "").append(" |\n");
      }
    });
    b.append("\n### not settable\n\n").append(ConfigKeys.NOT_KEYS.entrySet().stream().sorted(Map.Entry.comparingByKey())
        .map(e -> "- `" + e.getKey() + "`: " + escape(e.getValue())).collect(Collectors.joining("\n"))).append("\n");
    return b.toString();
  }

  private static String code(String text) {
    return text.startsWith("(") ? escape(text) : "`" + text + "`";
  }

  private static String escape(String text) {
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;");
  }

  /** The page's text with the block between the markers replaced by {@link #markdown()}. */
  public static String render(String page) {
    int begin = page.indexOf(BEGIN);
    int end = page.indexOf(END);
    if (begin < 0 || end < begin) {
      throw new IllegalArgumentException("the page has no " + BEGIN + " ... " + END + " block");
    }
    return page.substring(0, begin + BEGIN.length()) + "\n" + markdown() + "\n" + page.substring(end);
  }

  /** Rewrites the key reference of the page at {@code args[0]} (docs/CONFIG.md). */
  public static void main(String[] args) throws IOException {
    Path page = Path.of(args.length > 0 ? args[0] : "docs/CONFIG.md");
    Files.writeString(page, render(Files.readString(page, StandardCharsets.UTF_8)), StandardCharsets.UTF_8);
  }
}
