package dev.sluice.broker.cli;

import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;

/**
 * {@code sluice members}: the cluster as the broker sees it ({@code GET /api/v1/members}).
 *
 * <pre>{@code
 * sluice members --server http://10.0.0.5:8301
 * }</pre>
 */
@Command(name = "members", mixinStandardHelpOptions = true, footer = ExitCode.HELP,
    description = "List the cluster's members as the broker sees them: node id, gRPC and admin addresses, state,"
        + " resolved ts, incarnation.")
public final class MembersCommand extends AdminCall {

  @Override
  public Integer call() {
    return send("GET", "/api/v1/members", null, r -> {
      JsonObject m = json(r);
      TextTable t = new TextTable("NODE_ID", "GRPC_ADDRESS", "ADMIN_ADDRESS", "STATE", "RESOLVED_TS", "INCARNATION");
      for (Object o : m.getJsonArray("members")) {
        JsonObject n = (JsonObject) o;
        t.row(n.getString("node_id") + (n.getString("node_id").equals(m.getString("this_node_id")) ? " *" : ""),
            n.getString("grpc_address"), n.getString("admin_address"), n.getString("state"), n.getLong("resolved_ts"),
            n.getString("incarnation"));
      }
      t.print(out());
    });
  }
}
