package dev.sluice.broker.cli;

import io.vertx.core.json.JsonObject;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code sluice node drain|get}: a member of the cluster, through any node's admin API.
 *
 * <pre>{@code
 * sluice node drain node-2 --wait      # DRAINING; returns once its changefeeds and collectors moved
 * sluice node get node-2 --json
 * }</pre>
 */
@Command(name = "node", mixinStandardHelpOptions = true,
    description = "Drain or show a member of the cluster (through any node's admin API).",
    footer = ExitCode.HELP, subcommands = {NodeCommand.Drain.class, NodeCommand.Get.class})
public final class NodeCommand implements Runnable {

  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  static String path(String id) {
    return "/api/v1/members/" + URLEncoder.encode(id, StandardCharsets.UTF_8);
  }

  static void print(java.io.PrintWriter out, JsonObject m) {
    out.printf("%s %s grpc=%s admin=%s servable=[%d, %d] lag_ms=%d%s changefeeds=%s%n", m.getString("node_id"),
        m.getString("state"), m.getString("grpc_address"), m.getString("admin_address"), m.getLong("gc_ts", 0L),
        m.getLong("resolved_ts", 0L), m.getLong("capture_lag_ms", -1L),
        m.getBoolean("coordinator", false) ? " coordinator" : "", m.getJsonObject("changefeeds", new JsonObject())
            .fieldNames());
    JsonObject d = m.getJsonObject("drain");
    if (d != null) {
      out.printf("drain: draining=%s hosting=%d collector_streams=%d drained=%s%n", d.getBoolean("draining"),
          d.getInteger("hosting"), d.getInteger("collector_streams"), d.getBoolean("drained"));
    }
  }

  @Command(name = "drain", description = "Mark a node DRAINING: the coordinator moves its changefeeds to other members"
      + " and its collectors are told to move, so it can stop with nothing lost (rolling restart).")
  static final class Drain extends AdminCall {
    @Parameters(index = "0", paramLabel = "NODE_ID")
    String id;

    @Option(names = "--wait", arity = "0..1", fallbackValue = "PT5M", paramLabel = "DURATION",
        description = "Wait until the node is drained (no changefeed, no collector stream left), ISO-8601;"
            + " without a value up to ${FALLBACK-VALUE}. Exit 1 if it is not drained by then.")
    Duration wait;

    @Override
    public Integer call() {
      int code = send("POST", path(id) + "/drain", null, r -> print(out(), r.json()));
      if (code != ExitCode.OK || wait == null) {
        return code;
      }
      long deadline = System.nanoTime() + wait.toNanos();
      while (System.nanoTime() - deadline < 0) {
        AdminClient.Response r;
        try {
          r = admin.client().send("GET", path(id), null);
        } catch (AdminClient.AdminUnreachableException e) {
          err().println("sluice: " + e.getMessage());
          err().flush();
          return ExitCode.SERVER;
        }
        JsonObject drain = r.status() == 200 ? r.json().getJsonObject("drain") : null;
        if (drain != null && drain.getBoolean("drained", false)) {
          out().println("drained: " + id + " can stop now");
          out().flush();
          return ExitCode.OK;
        }
        try {
          Thread.sleep(500);   // a person's command line polling the server: no tighter signal exists
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return ExitCode.SERVER;
        }
      }
      err().println("sluice: node " + id + " is not drained after " + wait + "; see sluice node get " + id);
      err().flush();
      return ExitCode.SERVER;
    }
  }

  @Command(name = "get", description = "Show a member: state, servable range, lag, changefeeds, drain progress.")
  static final class Get extends AdminCall {
    @Parameters(index = "0", paramLabel = "NODE_ID")
    String id;

    @Override
    public Integer call() {
      return send("GET", path(id), null, r -> print(out(), r.json()));
    }
  }
}
