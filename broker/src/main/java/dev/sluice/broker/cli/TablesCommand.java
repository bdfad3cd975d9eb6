package dev.sluice.broker.cli;

import io.vertx.core.json.JsonObject;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sluice tables}: the upstream tables the broker knows, or with {@code --include} and
 * {@code --exclude} a dry run of changefeed rules: what they follow and which rule matches nothing
 * ({@code GET /api/v1/tables}).
 *
 * <pre>{@code
 * sluice tables
 * sluice tables --include 'demo.*' --exclude 'demo.tmp_*'
 * }</pre>
 */
@Command(name = "tables", mixinStandardHelpOptions = true, footer = ExitCode.HELP,
    description = {"List the upstream tables the broker knows (name, id, whether the upstream publication"
        + " publishes it, key columns).",
        "With --include/--exclude: the tables a changefeed with those rules follows now, how many tables each rule"
            + " matches, and a warning for each rule that matches none."})
public final class TablesCommand extends AdminCall {

  @Option(names = "--include", paramLabel = "SCHEMA.TABLE", description = "Table rule with globs * and ?; repeatable.")
  List<String> include = new ArrayList<>();

  @Option(names = "--exclude", paramLabel = "SCHEMA.TABLE", description = "Table rule that wins over --include;"
      + " repeatable.")
  List<String> exclude = new ArrayList<>();

  @Override
  public Integer call() {
    List<String> q = new ArrayList<>();
    include.forEach(r -> q.add("include=" + URLEncoder.encode(r, StandardCharsets.UTF_8)));
    exclude.forEach(r -> q.add("exclude=" + URLEncoder.encode(r, StandardCharsets.UTF_8)));
    return send("GET", "/api/v1/tables" + (q.isEmpty() ? "" : "?" + String.join("&", q)), null, r -> {
      JsonObject answer = json(r);
      TextTable t = new TextTable("TABLE", "TABLE_ID", "PUBLISHED", "KEY");
      List<String> unpublished = new ArrayList<>();
      for (Object o : answer.getJsonArray("tables")) {
        JsonObject x = (JsonObject) o;
        boolean published = x.getBoolean("published", true);
        if (!published) {
          unpublished.add(x.getString("table"));
        }
        t.row(x.getString("table"), x.getLong("table_id"), published ? "yes" : "no",
            x.getJsonArray("primary_key").isEmpty() ? "(none)"
                : String.join(",", x.getJsonArray("primary_key").stream().map(String::valueOf).toList()));
      }
      t.print(out());
      if (!unpublished.isEmpty()) {
        err().println("sluice: warning: the upstream publication leaves " + unpublished.size() + " table(s) out ("
            + String.join(", ", unpublished.stream().limit(5).toList()) + (unpublished.size() > 5 ? ", ..." : "")
            + "): none of their changes reach the broker, which refuses to serve them; add them with ALTER"
            + " PUBLICATION ... ADD TABLE");
      }
      if (answer.containsKey("rules")) {
        out().println();
        TextTable rules = new TextTable("RULE", "KIND", "MATCHES");
        for (Object o : answer.getJsonArray("rules")) {
          JsonObject x = (JsonObject) o;
          rules.row(x.getString("rule"), x.getString("kind"), x.getLong("matches"));
        }
        rules.print(out());
        for (Object w : answer.getJsonArray("warnings")) {
          err().println("sluice: warning: " + w);
        }
      }
    });
  }
}
