package dev.sluice.broker.cli;

import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;

/**
 * {@code sluice captures}: the broker's upstream capture ({@code GET /api/v1/captures}).
 *
 * <pre>{@code
 * sluice captures
 * }</pre>
 */
@Command(name = "captures", mixinStandardHelpOptions = true, footer = ExitCode.HELP,
    description = "Show the broker's upstream capture: state, DDL mode, slot, publication, position, resolved ts, lag"
        + " and last error.")
public final class CapturesCommand extends AdminCall {

  @Override
  public Integer call() {
    return send("GET", "/api/v1/captures", null, r -> {
      TextTable t = new TextTable("NODE_ID", "STATE", "DDL_MODE", "SLOT", "PUBLICATION", "LAST_COMMIT_TS",
          "RESOLVED_TS", "LAG_MS", "RETRIES", "LAST_ERROR");
      for (Object o : json(r).getJsonArray("captures")) {
        JsonObject c = (JsonObject) o;
        t.row(c.getString("node_id"), c.getString("state"), c.getString("ddl_mode"), c.getString("slot"),
            c.getString("publication"), c.getJsonObject("position").getLong("last_commit_ts"), c.getLong("resolved_ts"),
            c.getLong("lag_ms"), c.getInteger("retry_count"), c.getString("last_error"));
      }
      t.print(out());
    });
  }
}
