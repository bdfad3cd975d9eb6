package dev.sluice.broker.cli;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code sluice changefeed create|list|get|pause|resume|update|delete}: the hosted changefeeds of a
 * broker, through its admin API.
 *
 * <pre>{@code
 * sluice changefeed create orders --include 'public.*' --sink-uri 'jdbc:postgresql://db/warehouse?user=u&password=p'
 * sluice changefeed get orders --json
 * sluice changefeed delete orders --keep-meta
 * sluice changefeed purge orders        # discards the checkpoint the keep-meta delete kept
 * }</pre>
 */
@Command(name = "changefeed", mixinStandardHelpOptions = true,
    description = "Manage the changefeeds a broker hosts (through its admin API).",
    footer = ExitCode.HELP,
    subcommands = {ChangefeedCommand.Create.class, ChangefeedCommand.ListAll.class, ChangefeedCommand.Get.class,
        ChangefeedCommand.Pause.class, ChangefeedCommand.Resume.class, ChangefeedCommand.Update.class,
        ChangefeedCommand.Delete.class, ChangefeedCommand.Purge.class, ChangefeedCommand.Snapshot.class})
public final class ChangefeedCommand implements Runnable {

  private static final String BASE = "/api/v1/changefeeds";

  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  static String path(String id) {
    return BASE + "/" + URLEncoder.encode(id, StandardCharsets.UTF_8);
  }

  /** The definition options shared by create and update. */
  static final class DefinitionOptions {
    @Option(names = "--sink-uri", paramLabel = "URI", description = "jdbc:postgresql://..., jdbc:mariadb://...,"
        + " jdbc:mysql://..., jsonl:file:PATH (in the server's file sink directory) or jsonl:stdout; checked before"
        + " the server records it.")
    String sinkUri;

    @Option(names = "--include", paramLabel = "SCHEMA.TABLE", description = "Table rule with globs * and ?; repeatable.")
    List<String> include;

    @Option(names = "--exclude", paramLabel = "SCHEMA.TABLE", description = "Table rule that wins over --include;"
        + " repeatable.")
    List<String> exclude;

    @Option(names = "--broker", paramLabel = "HOST:PORT", description = "Broker gRPC address; repeatable"
        + " (default: the server itself).")
    List<String> brokers;

    @Option(names = "--option", paramLabel = "KEY=VALUE", description = "table_poll_interval_ms, max_batch_transactions,"
        + " target_schema, batch_size, create_tables, apply_mode (transaction or table), gc_ttl_s; repeatable.")
    Map<String, String> options;

    @Option(names = "--no-validate", description = "Do not check that a new sink works before the server records it"
        + " (it then fails and retries until the sink works).")
    boolean noValidate;

    /** The query string of the request: {@code ?validate=false} with --no-validate. */
    String query() {
      return noValidate ? "?validate=false" : "";
    }

    JsonObject toJson() {
      JsonObject o = new JsonObject();
      if (sinkUri != null) {
        o.put("sink_uri", sinkUri);
      }
      if (include != null) {
        o.put("include", new JsonArray(include));
      }
      if (exclude != null) {
        o.put("exclude", new JsonArray(exclude));
      }
      if (brokers != null) {
        o.put("brokers", new JsonArray(brokers));
      }
      if (options != null) {
        JsonObject opts = new JsonObject();
        options.forEach((k, v) -> opts.put(k, v.matches("-?\\d+") ? (Object) Long.parseLong(v)
            : v.equals("true") || v.equals("false") ? (Object) Boolean.parseBoolean(v) : v));
        o.put("options", opts);
      }
      return o;
    }
  }

  @Command(name = "create", mixinStandardHelpOptions = true, footer = ExitCode.HELP,
      description = {"Create a changefeed (re-creating a deleted id with kept metadata resumes from its checkpoint).",
          "The server checks the sink first and refuses one that does not work (exit 2), unless --no-validate."})
  static final class Create extends AdminCall {
    @Parameters(index = "0", paramLabel = "ID", description = "Changefeed id.")
    String id;

    @picocli.CommandLine.Mixin
    DefinitionOptions definition;

    @Option(names = "--start-ts", paramLabel = "TS", description = "Exclusive start ts (default: the broker's"
        + " resolved ts now, or the kept checkpoint).")
    Long startTs;

    @Option(names = "--initial-load", paramLabel = "MODE", description = "snapshot (default: copy the rows the tables"
        + " hold first, online, then their changes) or none (only changes after the start ts).")
    String initialLoad;

    @Override
    public Integer call() {
      JsonObject body = definition.toJson().put("id", id);
      if (startTs != null) {
        body.put("start_ts", startTs);
      }
      if (initialLoad != null) {
        body.put("initial_load", initialLoad);   // checked by the server (400 naming initial_load)
      }
      return send("POST", BASE + definition.query(), body, r -> ChangefeedPrinter.printOne(out(), r.json()));
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true, footer = ExitCode.HELP,
      description = "List the changefeeds with state, checkpoint and lag.")
  static final class ListAll extends AdminCall {
    @Option(names = "--state", paramLabel = "STATE", description = "Only NORMAL, PAUSED, FAILED or REMOVING ones.")
    String state;

    @Override
    public Integer call() {
      String q = state == null ? "" : "?state=" + URLEncoder.encode(state, StandardCharsets.UTF_8);
      return send("GET", BASE + q, null, r -> ChangefeedPrinter.printList(out(), r.json().getJsonArray("changefeeds")));
    }
  }

  @Command(name = "get", mixinStandardHelpOptions = true, footer = ExitCode.HELP,
      description = "Show a changefeed: definition, state, checkpoint, lag and per-table state.")
  static final class Get extends AdminCall {
    @Parameters(index = "0", paramLabel = "ID")
    String id;

    @Override
    public Integer call() {
      return send("GET", path(id), null, r -> ChangefeedPrinter.printOne(out(), r.json()));
    }
  }

  @Command(name = "pause", mixinStandardHelpOptions = true, footer = ExitCode.HELP,
      description = "Pause a changefeed (its runtime stops; its checkpoint is kept).")
  static final class Pause extends AdminCall {
    @Parameters(index = "0", paramLabel = "ID")
    String id;

    @Override
    public Integer call() {
      return send("POST", path(id) + "/pause", null, r -> ChangefeedPrinter.printOne(out(), r.json()));
    }
  }

  @Command(name = "resume", mixinStandardHelpOptions = true, footer = ExitCode.HELP,
      description = "Resume a PAUSED or FAILED changefeed from its checkpoint.")
  static final class Resume extends AdminCall {
    @Parameters(index = "0", paramLabel = "ID")
    String id;

    @Override
    public Integer call() {
      return send("POST", path(id) + "/resume", null, r -> ChangefeedPrinter.printOne(out(), r.json()));
    }
  }

  @Command(name = "snapshot", mixinStandardHelpOptions = true, footer = ExitCode.HELP,
      description = {"Read a changefeed's tables again from the start while their changes keep flowing (a"
          + " re-snapshot), or pause, resume or cancel its snapshots.",
          "Without --table: every table it follows. Progress: sluice changefeed get ID."})
  static final class Snapshot extends AdminCall {
    @Parameters(index = "0", paramLabel = "ID")
    String id;

    @Option(names = "--table", paramLabel = "SCHEMA.TABLE", description = "A table it follows; repeatable.")
    List<String> tables;

    @Option(names = "--pause", description = "Pause the running snapshots (changes go on).")
    boolean pause;

    @Option(names = "--resume", description = "Continue paused snapshots where they stopped.")
    boolean resume;

    @Option(names = "--cancel", description = "End running or paused snapshots for good.")
    boolean cancel;

    @Override
    public Integer call() {
      int actions = (pause ? 1 : 0) + (resume ? 1 : 0) + (cancel ? 1 : 0);
      if (actions > 1) {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(),
            "give at most one of --pause, --resume, --cancel");
      }
      String suffix = pause ? "/pause" : resume ? "/resume" : cancel ? "/cancel" : "";
      JsonObject body = tables == null ? null : new JsonObject().put("tables", new JsonArray(tables));
      return send("POST", path(id) + "/snapshot" + suffix, body, r -> {
        JsonObject o = r.json();
        out().printf("%s: %s%n", o.getString("action"), o.getJsonArray("tables").isEmpty() ? "no table"
            : String.join(", ", o.getJsonArray("tables").stream().map(String::valueOf).toList()));
        for (Object t : o.getJsonObject("snapshot").getJsonArray("tables")) {
          JsonObject s = (JsonObject) t;
          out().printf("  %-32s %s%n", s.getString("table"), ChangefeedPrinter.snapshotLine(s));
        }
      });
    }
  }

  @Command(name = "update", mixinStandardHelpOptions = true, footer = ExitCode.HELP,
      description = "Change a changefeed's definition (the options given replace theirs); a running changefeed"
          + " restarts every table from its checkpoint.")
  static final class Update extends AdminCall {
    @Parameters(index = "0", paramLabel = "ID")
    String id;

    @picocli.CommandLine.Mixin
    DefinitionOptions definition;

    @Override
    public Integer call() {
      return send("PATCH", path(id) + definition.query(), definition.toJson(),
          r -> ChangefeedPrinter.printOne(out(), r.json()));
    }
  }

  @Command(name = "delete", mixinStandardHelpOptions = true, footer = ExitCode.HELP,
      description = {"Delete a changefeed. It is stopped without flushing what it has not applied.",
          "Without --keep-meta its checkpoint (on the server and in the sink) is removed; with it, the checkpoint and"
              + " per-table progress are kept and creating the same id again resumes from them.",
          "The rows already written to the sink are never removed."})
  static final class Delete extends AdminCall {
    @Parameters(index = "0", paramLabel = "ID")
    String id;

    @Option(names = "--keep-meta", description = "Keep the checkpoint and per-table progress for a later re-create.")
    boolean keepMeta;

    @Option(names = "--wait", paramLabel = "DURATION", defaultValue = "60s", converter = DurationConverter.class,
        description = "How long to wait for a deletion that continues in the background, such as 30s, 2m or ISO-8601"
            + " (default: ${DEFAULT-VALUE}; 0s = do not wait).")
    Duration wait;

    @Override
    public Integer call() {
      return deleteAndWait(this, id, path(id) + "?keep_meta=" + keepMeta, wait,
          "deleted " + id + (keepMeta ? " (metadata kept)" : ""));
    }
  }

  /** DELETE {@code pathAndQuery}; a deletion that continues in the background is followed up to {@code wait}. */
  static int deleteAndWait(AdminCall call, String id, String pathAndQuery, Duration wait, String done) {
    List<String> status = new ArrayList<>();
    int code = call.send("DELETE", pathAndQuery, null, r -> {
      if (r.status() == 202) {
        status.add(r.location().orElse(path(id) + "/deletion/" + r.json().getLong("generation")));
      } else {
        call.out().println(done);
      }
    });
    if (code != ExitCode.OK || status.isEmpty()) {
      return code;
    }
    String statusPath = status.get(0);
    long deadline = System.nanoTime() + wait.toNanos();
    while (true) {
      AdminClient.Response r;
      try {
        r = call.admin.client().send("GET", statusPath, null);
      } catch (AdminClient.AdminUnreachableException e) {
        call.err().println("sluice: " + e.getMessage());
        return ExitCode.SERVER;
      }
      if (r.status() != 200) {
        return call.send("GET", statusPath, null, x -> { });
      }
      JsonObject s = r.json();
      if ("COMPLETED".equals(s.getString("phase"))) {
        call.out().println(done);
        call.out().flush();
        return ExitCode.OK;
      }
      if (System.nanoTime() - deadline >= 0) {
        JsonObject last = s.getJsonObject("last_error");
        call.err().println("sluice: the deletion of " + id + " continues in the background; follow it at " + statusPath
            + (last == null ? "" : " (last error: " + last.getString("message") + ")"));
        call.err().flush();
        return ExitCode.SERVER;
      }
      try {
        Thread.sleep(200);   // polling a status URL: nothing to wait on but time
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return ExitCode.SERVER;
      }
    }
  }

  @Command(name = "purge", mixinStandardHelpOptions = true, footer = ExitCode.HELP,
      description = {"Discard what is kept of a changefeed's progress: the checkpoint a delete --keep-meta kept (on the"
          + " server, and the sink's checkpoint rows or file), so creating the id again starts afresh and the broker's"
          + " GC no longer keeps events for it.",
          "On a changefeed that exists this is a delete without --keep-meta. The rows already written to the sink are"
              + " never removed."})
  static final class Purge extends AdminCall {
    @Parameters(index = "0", paramLabel = "ID")
    String id;

    @Option(names = "--wait", paramLabel = "DURATION", defaultValue = "PT60S", description = "How long to wait for a"
        + " purge that continues in the background, ISO-8601 (default: ${DEFAULT-VALUE}; PT0S = do not wait).")
    Duration wait;

    @Override
    public Integer call() {
      return deleteAndWait(this, id, path(id) + "?purge=true", wait, "purged " + id);
    }
  }
}
