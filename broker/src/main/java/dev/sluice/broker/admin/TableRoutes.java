package dev.sluice.broker.admin;

import dev.sluice.broker.changefeed.InvalidChangefeedException;
import dev.sluice.broker.publication.PublicationMembers;
import dev.sluice.dispatcher.changefeed.TableFilter;
import dev.sluice.schema.TableInfo;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * {@code GET /api/v1/tables}: the upstream tables this broker knows at its servable ts (each with
 * {@code published}: false when the publication leaves it out and its changes never arrive), or, with
 * {@code include} and {@code exclude} rules (repeatable, as a changefeed takes them), a dry run: the
 * tables those rules follow, how many each rule matches, and a warning per rule that matches none. A
 * bad rule is a 400 naming it, as at create.
 *
 * <pre>{@code
 * GET /api/v1/tables?include=demo.*&exclude=demo.tmp_*
 * }</pre>
 */
final class TableRoutes {

  private final AdminResources resources;

  TableRoutes(AdminResources resources) {
    this.resources = resources;
  }

  void register(AdminRoutes routes) {
    routes.add(HttpMethod.GET, "/api/v1/tables", Set.of("include", "exclude"), ex -> {
      List<String> include = ex.queryAll("include");
      List<String> exclude = ex.queryAll("exclude");
      TableFilter filter = filter(include, exclude);
      ex.reply(200, ex.blocking(() -> render(include, exclude, filter)));
    });
  }

  /** The filter the rules make (null: no rules, every table); a bad rule is a 400 naming it. */
  private static TableFilter filter(List<String> include, List<String> exclude) {
    if (include.isEmpty() && !exclude.isEmpty()) {
      throw InvalidChangefeedException.field("include", "needs at least one rule such as \"public.*\" when exclude is"
          + " given");
    }
    if (include.isEmpty()) {
      return null;
    }
    List<String> rules = new ArrayList<>();
    for (String r : include) {
      rules.add(checked("include", r));
    }
    for (String r : exclude) {
      rules.add("!" + checked("exclude", r));
    }
    return TableFilter.of(rules);
  }

  private static String checked(String field, String rule) {
    if (rule.startsWith("!")) {
      throw InvalidChangefeedException.field(field, "rules are schema.table globs without '!', got \"" + rule + "\"");
    }
    try {
      TableFilter.of(rule);
    } catch (IllegalArgumentException e) {
      throw InvalidChangefeedException.field(field, e.getMessage());
    }
    return rule;
  }

  private JsonObject render(List<String> include, List<String> exclude, TableFilter filter) {
    long at = resources.schema().resolvedTs();
    List<TableInfo> all = new ArrayList<>(resources.schema().tablesAt(at));
    all.sort(Comparator.comparing(TableInfo::qualifiedName));
    JsonArray tables = new JsonArray();
    PublicationMembers members = resources.eventService().published().current();
    List<String> names = new ArrayList<>();
    for (TableInfo t : all) {
      names.add(t.qualifiedName());
      if (filter == null || filter.matches(t.qualifiedName())) {
        tables.add(new JsonObject().put("table", t.qualifiedName()).put("table_id", t.tableId())
            .put("columns", t.columns().size()).put("primary_key", new JsonArray(t.primaryKey()))
            .put("published", members.publishes(t.tableId())));
      }
    }
    JsonObject out = new JsonObject().put("at_ts", at).put("include", new JsonArray(include))
        .put("exclude", new JsonArray(exclude)).put("tables", tables);
    if (filter != null) {
      JsonArray rules = new JsonArray();
      JsonArray warnings = new JsonArray();
      List<String> unmatched = filter.unmatchedRules(names);
      for (String rule : filter.rules()) {
        boolean ex = rule.startsWith("!");
        String glob = ex ? rule.substring(1) : rule;
        long matches = names.stream().filter(n -> TableFilter.of(glob).matches(n)).count();
        rules.add(new JsonObject().put("rule", glob).put("kind", ex ? "exclude" : "include").put("matches", matches));
        if (unmatched.contains(rule)) {
          warnings.add((ex ? "exclude" : "include") + " rule \"" + glob + "\" matches no table (names are"
              + " case-sensitive; * and ? are the only wildcards)");
        }
      }
      out.put("rules", rules).put("warnings", warnings);
    }
    return out;
  }
}
