package dev.sluice.broker.cli;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;

/** Prints changefeeds for a person (the {@code --json} output is the server's JSON as is). */
final class ChangefeedPrinter {

  private static final String ROW = "%-24s %-9s %4s %20s %10s  %s%n";

  private ChangefeedPrinter() {}

  static void printList(PrintWriter out, JsonArray changefeeds) {
    out.printf(ROW, "ID", "STATE", "GEN", "CHECKPOINT_TS", "LAG_MS", "SINK");
    for (Object o : changefeeds) {
      JsonObject c = (JsonObject) o;
      out.printf(ROW, c.getString("id"), c.getString("state"), c.getLong("generation"), c.getLong("checkpoint_ts"),
          c.getValue("lag_ms") == null ? "-" : c.getLong("lag_ms"),
          c.getJsonObject("definition").getString("sink_uri"));
    }
  }

  /**
   * A table's snapshot in one line: {@code snapshot running [########------------]  40.0%  1,200 of 3,000 rows
   * 400 rows/s  ETA 5s}; a done one shows its rows alone, and so does a stored one (a changefeed that does not
   * run: no estimate, rate or time left, {@code snapshot paused 1,200 rows (the changefeed is paused: ...)}).
   */
  static String snapshotLine(JsonObject s) {
    String state = s.getString("state");
    long rows = s.getLong("rows_done", 0L);
    String line = "snapshot " + state + " ";
    if ("done".equals(state)) {
      line += String.format(java.util.Locale.ROOT, "%,d rows", rows);
    } else {
      boolean running = "running".equals(state);
      Number rate = (Number) s.getValue("rows_per_s");
      Number eta = (Number) s.getValue("eta_s");
      Number estimate = (Number) s.getValue("rows_estimated");   // null in a stored view
      line += ProgressBar.line(rows, estimate == null ? 0 : estimate.longValue(),
          running && rate != null ? rate.doubleValue() : -1, running && eta != null ? eta.longValue() : -1);
    }
    return s.getString("reason") == null ? line : line + " (" + s.getString("reason") + ")";
  }

  static void printOne(PrintWriter out, JsonObject c) {
    JsonObject d = c.getJsonObject("definition");
    out.printf("id:          %s (generation %d)%n", c.getString("id"), c.getLong("generation"));
    out.printf("state:       %s%n", c.getString("state"));
    out.printf("sink:        %s%n", d.getString("sink_uri"));
    out.printf("tables:      include %s, exclude %s%n", d.getJsonArray("include").encode(),
        d.getJsonArray("exclude").encode());
    out.printf("start ts:    %d%n", d.getLong("start_ts"));
    out.printf("checkpoint:  %d (lag %d ts, %s ms)%n", c.getLong("checkpoint_ts"), c.getLong("lag_ts"),
        c.getValue("lag_ms") == null ? "-" : c.getLong("lag_ms"));
    if (c.getString("apply_mode") != null) {
      out.printf("apply mode:  %s%n", c.getString("apply_mode"));
    }
    if (c.getString("initial_load") != null) {
      JsonObject snapshot = c.getJsonObject("snapshot");
      String state = snapshot == null ? null : snapshot.getString("state");
      String asOf = snapshot != null && "stored".equals(snapshot.getString("as_of")) ? ", as last stored" : "";
      out.printf("initial load: %s%s%n", c.getString("initial_load"), state == null ? ""
          : " (snapshots: " + state + asOf + ")");
    }
    JsonObject hold = c.getJsonObject("gc_hold");
    if (hold != null && !"NONE".equals(hold.getString("phase"))) {
      out.printf("gc hold:     %s at %s%s%n", hold.getString("phase"), hold.getValue("held_ts"),
          hold.getValue("expires_at_ms") == null ? "" : ", expires at " + java.time.Instant.ofEpochMilli(
              hold.getLong("expires_at_ms")));
    }
    JsonObject error = c.getJsonObject("error");
    if (error != null) {
      out.printf("error:       %s: %s%n", error.getString("code"), error.getString("message"));
    }
    JsonObject deletion = c.getJsonObject("deletion");
    if (deletion != null) {
      out.printf("deletion:    %s (keep_meta=%s, attempts %d)%n", deletion.getString("status_url"),
          deletion.getBoolean("keep_meta"), deletion.getInteger("attempts"));
    }
    JsonArray warnings = c.getJsonArray("warnings");
    if (warnings != null) {
      for (Object w : warnings) {
        out.printf("warning:     %s%n", w);
      }
    }
    JsonArray tables = c.getJsonArray("tables");
    for (Object o : tables) {
      JsonObject t = (JsonObject) o;
      out.printf("  %-32s %-9s %-12s checkpoint %d  lag %d ts, %s ms%n", t.getString("table"),
          t.getString("phase") == null ? "-" : t.getString("phase"),
          t.getString("dispatcher_state") == null ? "-" : t.getString("dispatcher_state"), t.getLong("checkpoint_ts"),
          t.getLong("lag_ts"), t.getValue("lag_ms") == null ? "-" : t.getLong("lag_ms"));
      if (t.getString("note") != null) {
        out.printf("      %s%n", t.getString("note"));
      }
      JsonObject snapshot = t.getJsonObject("snapshot");
      if (snapshot != null) {
        out.printf("      %s%n", snapshotLine(snapshot));
      }
    }
    JsonArray divergences = c.getJsonArray("divergences");
    if (divergences != null) {
      for (Object o : divergences) {
        JsonObject v = (JsonObject) o;
        out.printf("differs:     %s.%s since ts %d: %s%n", v.getString("table"), v.getString("column"),
            v.getLong("since_ts"), v.getString("reason"));
      }
    }
  }
}
