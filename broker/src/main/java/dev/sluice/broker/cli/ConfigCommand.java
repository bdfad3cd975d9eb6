package dev.sluice.broker.cli;

import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code sluice config get|set}: the broker's settings and where each came from, and its runtime limits
 * ({@code GET}/{@code PATCH /api/v1/config}).
 *
 * <pre>{@code
 * sluice config get
 * sluice config set scanConcurrency=8 scanRateBytesPerSecond=104857600
 * }</pre>
 */
@Command(name = "config", mixinStandardHelpOptions = true, footer = ExitCode.HELP,
    description = "Show the broker's settings or change its runtime limits (through its admin API).",
    subcommands = {ConfigCommand.Get.class, ConfigCommand.Set.class})
public final class ConfigCommand implements Runnable {

  private static final String PATH = "/api/v1/config";

  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /**
   * One row per setting (those named in {@code only} when it is not empty, by key or last part): its
   * value, where it came from, and whether it can be set at runtime.
   */
  static void print(AdminCall call, JsonObject config, java.util.Set<String> only) {
    JsonObject settings = config.getJsonObject("settings", config);
    TextTable t = new TextTable("KEY", "VALUE", "SOURCE", "RUNTIME");
    for (String key : new TreeSet<>(settings.fieldNames())) {
      String leaf = key.substring(key.lastIndexOf('.') + 1);
      if (!only.isEmpty() && !only.contains(key) && !only.contains(leaf)) {
        continue;
      }
      Object v = settings.getValue(key);
      if (v instanceof JsonObject o && o.containsKey("value")) {
        t.row(key, text(o.getValue("value")), o.getValue("source"), o.getBoolean("runtime", false) ? "yes" : "");
      } else {
        t.row(key, text(v), null, "");
      }
    }
    t.print(call.out());
  }

  private static String text(Object v) {
    return v instanceof JsonObject o ? o.encode() : v instanceof io.vertx.core.json.JsonArray a ? a.encode()
        : String.valueOf(v);
  }

  @Command(name = "get", mixinStandardHelpOptions = true, footer = ExitCode.HELP,
      description = "Show every setting in force: its value, where it came from (default, file, env, flag,"
          + " runtime) and whether `config set` can change it.")
  static final class Get extends AdminCall {
    @Override
    public Integer call() {
      return send("GET", PATH, null, r -> print(this, json(r), java.util.Set.of()));
    }
  }

  @Command(name = "set", mixinStandardHelpOptions = true, footer = ExitCode.HELP,
      description = {"Change runtime settings (kept across restarts); an unknown key, a key fixed at start or a bad"
          + " value changes nothing (exit 2).",
          "Keys as `sluice config get` marks runtime, by key or last part, such as scanConcurrency,"
              + " scanRateBytesPerSecond, connectionQueueBytes, maxDispatchers, scanBatchBytes."})
  static final class Set extends AdminCall {
    @Parameters(arity = "1..*", paramLabel = "KEY=VALUE", description = "A limit and its new value; repeatable.")
    Map<String, String> values = new LinkedHashMap<>();

    @Override
    public Integer call() {
      JsonObject patch = new JsonObject();
      values.forEach((k, v) -> patch.put(k, v.matches("-?\\d+") ? (Object) Long.parseLong(v)
          : v.equals("true") || v.equals("false") ? (Object) Boolean.parseBoolean(v) : v));
      return send("PATCH", PATH, patch, r -> print(this, json(r), values.keySet()));
    }
  }
}
