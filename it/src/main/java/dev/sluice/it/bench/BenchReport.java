package dev.sluice.it.bench;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes figures into {@code docs/benchmarks.json} (entries replaced by id, others kept) and one
 * section of {@code docs/BENCHMARKS.md} (replaced between its heading and the next "## " heading),
 * with the machine, the command and the date, so every harness owns its own part of both files.
 */
final class BenchReport {

  private final Path docs;
  private final String commit;
  private final String mode;
  private final String command;

  BenchReport(Path docs, String mode, String command) {
    this.docs = docs;
    this.mode = mode;
    this.command = command;
    this.commit = run("git", "rev-parse", "--short", "HEAD");
  }

  void write(String heading, List<Figure> figures, String notes) {
    try {
      Files.createDirectories(docs);
      writeJson(figures);
      writeMarkdown(heading, figures, notes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void writeJson(List<Figure> figures) throws IOException {
    Path file = docs.resolve("benchmarks.json");
    JsonArray all = Files.exists(file) ? new JsonArray(Files.readString(file)) : new JsonArray();
    JsonArray out = new JsonArray();
    for (Object o : all) {
      JsonObject j = (JsonObject) o;
      if (figures.stream().noneMatch(f -> f.id().equals(j.getString("id")))) {
        out.add(j);
      }
    }
    for (Figure f : figures) {
      out.add(f.toJson(commit, mode).put("measured_at", Instant.now().toString()));
    }
    Files.writeString(file, out.encodePrettily() + "\n", StandardCharsets.UTF_8);
  }

  private void writeMarkdown(String heading, List<Figure> figures, String notes) throws IOException {
    Path file = docs.resolve("BENCHMARKS.md");
    String existing = Files.exists(file) ? Files.readString(file) : "# Benchmarks\n\n";
    StringBuilder section = new StringBuilder();
    section.append(heading).append("\n\n");
    section.append("- machine: ").append(machine()).append('\n');
    section.append("- command: `").append(command).append("` (mode ").append(mode).append(", commit ").append(commit)
        .append(", ").append(Instant.now()).append(")\n\n");
    section.append("| figure | median | target | meets | runs | how |\n|---|---|---|---|---|---|\n");
    for (Figure f : figures) {
      section.append("| ").append(f.title()).append(" (`").append(f.id()).append("`) | ")
          .append(fmt(f.value())).append(' ').append(f.unit()).append(" | ")
          .append(Double.isNaN(f.target()) ? "" : (f.higherIsBetter() ? ">= " : "<= ") + fmt(f.target()) + " " + f.unit())
          .append(" | ").append(f.meets() ? "yes" : "**no**").append(" | ").append(f.runs()).append(" | ")
          .append(f.detail()).append(" |\n");
    }
    if (!notes.isBlank()) {
      section.append('\n').append(notes.strip()).append('\n');
    }
    section.append('\n');
    int at = existing.indexOf(heading + "\n");
    String updated;
    if (at < 0) {
      updated = existing.stripTrailing() + "\n\n" + section;
    } else {
      int next = existing.indexOf("\n## ", at + heading.length());
      updated = existing.substring(0, at) + section + (next < 0 ? "" : existing.substring(next + 1));
    }
    Files.writeString(file, updated, StandardCharsets.UTF_8);
  }

  static final String SUMMARY = "## Summary (it/ harness, every figure in benchmarks.json)";

  /**
   * Rewrites the summary section (right after the file's introduction): every figure of
   * {@code benchmarks.json} with its target and verdict, and how long the last run of each mode took.
   */
  void writeSummary(java.time.Duration took, boolean complete) {
    try {
      Path json = docs.resolve("benchmarks.json");
      JsonArray all = Files.exists(json) ? new JsonArray(Files.readString(json)) : new JsonArray();
      Path file = docs.resolve("BENCHMARKS.md");
      String existing = Files.exists(file) ? Files.readString(file) : "# Benchmarks\n\n";
      String otherMode = mode.equals("quick") ? "full" : "quick";
      java.util.regex.Matcher kept = java.util.regex.Pattern
          .compile("^- last " + otherMode + " run: .*$", java.util.regex.Pattern.MULTILINE).matcher(existing);
      java.util.regex.Matcher same = java.util.regex.Pattern
          .compile("^- last " + mode + " run: .*$", java.util.regex.Pattern.MULTILINE).matcher(existing);
      StringBuilder sb = new StringBuilder(SUMMARY).append("\n\n");
      sb.append("`make bench` (full: every figure, medians of 3 runs) and `make bench-quick` (quick: reduced sizes, one run,")
          .append(" for regressions) write this file and `docs/benchmarks.json`; a script can read `meets` per `id`.\n\n");
      // a run of some benchmarks only does not say how long the mode takes: keep the last complete run's line
      String line = complete ? "- last " + mode + " run: " + Math.round(took.toSeconds() / 60.0) + " min ("
          + took.toSeconds() + " s) of the harness, commit " + commit + ", " + Instant.now() + " on " + machine()
          : same.find() ? same.group() : "- last " + mode + " run: (none complete yet)";
      if (mode.equals("quick")) {
        sb.append(kept.find() ? kept.group() + "\n" : "").append(line).append('\n');
      } else {
        sb.append(line).append('\n').append(kept.find() ? kept.group() + "\n" : "");
      }
      sb.append("\n| id | value | target | meets | peer | runs | mode | commit |\n|---|---|---|---|---|---|---|---|\n");
      for (Object o : all) {
        JsonObject f = (JsonObject) o;
        String target = f.containsKey("target") ? f.getString("target_direction", "") + " " + fmt(f.getDouble("target")) : "";
        sb.append("| `").append(f.getString("id")).append("` | ").append(fmt(f.getDouble("value"))).append(' ')
            .append(f.getString("unit")).append(" | ").append(target).append(" | ")
            .append(f.getBoolean("meets", true) ? "yes" : "**no**").append(" | ")
            .append(f.containsKey("peer_value") ? fmt(f.getDouble("peer_value")) : "").append(" | ")
            .append(f.getValue("runs", "")).append(" | ").append(f.getString("mode", "")).append(" | ")
            .append(f.getString("commit", "")).append(" |\n");
      }
      sb.append('\n');
      String section = sb.toString();
      int at = existing.indexOf(SUMMARY + "\n");
      String updated;
      if (at >= 0) {
        int next = existing.indexOf("\n## ", at + SUMMARY.length());
        updated = existing.substring(0, at) + section + (next < 0 ? "" : existing.substring(next + 1));
      } else {
        int first = existing.indexOf("\n## ");
        updated = first < 0 ? existing.stripTrailing() + "\n\n" + section
            : existing.substring(0, first + 1) + section + existing.substring(first + 1);
      }
      Files.writeString(file, updated, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String machine() {
    long mem = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getTotalMemorySize();
    return Runtime.getRuntime().availableProcessors() + " cores (" + cpuModel() + "), " + (mem >> 30) + " GiB RAM, "
        + System.getProperty("os.name") + " " + System.getProperty("os.version") + ", Java "
        + System.getProperty("java.version") + ", load average " + loadAverage() + " (the machine is shared)";
  }

  private static String cpuModel() {
    try {
      return Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
          .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse("unknown CPU");
    } catch (IOException e) {
      return "unknown CPU";
    }
  }

  private static String loadAverage() {
    try {
      String[] w = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return w[0] + " " + w[1] + " " + w[2];
    } catch (IOException e) {
      return "unknown";
    }
  }

  private static String fmt(double v) {
    if (Double.isNaN(v)) {
      return "n/a";
    }
    if (Math.abs(v) >= 1000) {
      return String.format("%,.0f", v);
    }
    return String.format("%.2f", v);
  }

  private static String run(String... cmd) {
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      return p.waitFor() == 0 ? out : "unknown";
    } catch (IOException e) {
      return "unknown";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }

  static List<Double> list() {
    return new ArrayList<>();
  }
}
