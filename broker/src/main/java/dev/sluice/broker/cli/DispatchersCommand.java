package dev.sluice.broker.cli;

import io.vertx.core.json.JsonObject;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sluice dispatchers}: the dispatchers registered on the broker, with their lag
 * ({@code GET /api/v1/dispatchers}).
 *
 * <pre>{@code
 * sluice dispatchers --changefeed orders --limit 50
 * }</pre>
 */
@Command(name = "dispatchers", mixinStandardHelpOptions = true, footer = ExitCode.HELP,
    description = "List the dispatchers registered on the broker: changefeed, span, epoch, checkpoint and lag.")
public final class DispatchersCommand extends AdminCall {

  @Option(names = "--changefeed", paramLabel = "ID", description = "Only the dispatchers of this changefeed.")
  String changefeed;

  @Option(names = "--limit", paramLabel = "N", description = "At most N (default: the server's, 1000).")
  Integer limit;

  @Override
  public Integer call() {
    StringBuilder q = new StringBuilder();
    if (changefeed != null) {
      q.append("changefeed=").append(URLEncoder.encode(changefeed, StandardCharsets.UTF_8));
    }
    if (limit != null) {
      q.append(q.isEmpty() ? "" : "&").append("limit=").append(limit);
    }
    return send("GET", "/api/v1/dispatchers" + (q.isEmpty() ? "" : "?" + q), null, r -> {
      JsonObject d = json(r);
      TextTable t = new TextTable("ID", "CHANGEFEED", "SPAN", "EPOCH", "STREAMING", "CHECKPOINT_TS", "LAG_TS",
          "LAG_MS");
      for (Object o : d.getJsonArray("dispatchers")) {
        JsonObject x = (JsonObject) o;
        t.row(x.getString("id"), x.getString("changefeed_id"), x.getString("span"), x.getLong("epoch"),
            x.getBoolean("streaming"), x.getLong("checkpoint_ts"), x.getLong("lag_ts"), x.getValue("lag_ms"));
      }
      t.print(out());
      out().println(d.getJsonArray("dispatchers").size() + " of " + d.getInteger("total") + " dispatchers"
          + (d.getBoolean("truncated") ? " (truncated: raise --limit)" : "") + "; resolved ts " + d.getLong("resolved_ts"));
    });
  }
}
