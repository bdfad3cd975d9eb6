package dev.sluice.it.workload;

import dev.sluice.it.PostgresServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * PostgreSQL's {@code pgbench} against a {@link PostgresServer}: the system's binary (zonky ships no
 * pgbench; {@code scripts/install-test-deps.sh} installs it). {@link #available()} tells whether it can
 * run here.
 *
 * <pre>{@code
 * Pgbench.run(upstream, "-i", "-s", "1", "-q");
 * String out = Pgbench.run(upstream, "-T", "10", "-c", "2", "-j", "2");
 * }</pre>
 */
public final class Pgbench {

  private Pgbench() {}

  /** The pgbench binary, or null when there is none on PATH. */
  public static Path binary() {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
      Path p = Path.of(dir, "pgbench");
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    return null;
  }

  public static boolean available() {
    return binary() != null;
  }

  /** Runs pgbench with {@code args} against {@code pg}; returns its output, throws when it fails. */
  public static String run(PostgresServer pg, String... args) {
    return run(pg.port(), args);
  }

  /** Runs pgbench with {@code args} against the server on 127.0.0.1:{@code port}, database postgres. */
  public static String run(int port, String... args) {
    Path bin = binary();
    if (bin == null) {
      throw new IllegalStateException("pgbench is not installed: run scripts/install-test-deps.sh");
    }
    List<String> cmd = new ArrayList<>(List.of(bin.toString(), "-h", "127.0.0.1", "-p", Integer.toString(port),
        "-U", "postgres"));
    cmd.addAll(List.of(args));
    cmd.add("postgres");
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(30, TimeUnit.MINUTES) || p.exitValue() != 0) {
        throw new IllegalStateException("pgbench " + String.join(" ", args) + " failed:\n" + out);
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The "tps = ..." figure of a run's output, or -1. */
  public static double tps(String output) {
    for (String line : output.split("\n")) {
      if (line.startsWith("tps = ")) {
        return Double.parseDouble(line.substring(6).split(" ")[0]);
      }
    }
    return -1;
  }
}
