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

  static String machine() {
    long mem = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getTotalMemorySize();
    return Runtime.getRuntime().availableProcessors() + " cores, " + (mem >> 30) + " GiB RAM, "
        + System.getProperty("os.name") + " " + System.getProperty("os.version") + ", Java "
        + System.getProperty("java.version");
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
