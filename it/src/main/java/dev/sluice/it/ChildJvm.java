package dev.sluice.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A real JVM process started from this JVM's classpath: a broker, a bench broker, a changefeed. Its
 * output goes to a log file (kept for failed runs) and is also scanned for protocol lines the child
 * prints ({@code READY <port>}, replies to stdin commands). Stopped by pid: SIGTERM, then SIGKILL.
 *
 * <pre>{@code
 * try (ChildJvm broker = ChildJvm.start("broker", BenchBroker.class, List.of("-Xmx2g"), List.of("--dir", d), logs)) {
 *   int port = Integer.parseInt(broker.awaitLine("READY ", Duration.ofSeconds(60)));
 *   ...
 * }
 * }</pre>
 */
public final class ChildJvm implements AutoCloseable {

  private final String name;
  private final Process process;
  private final Path log;
  private final PrintWriter stdin;
  /** Output lines not yet awaited; bounded (the log file has them all), the oldest go first. */
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>(MAX_PENDING_LINES);
  private static final int MAX_PENDING_LINES = 10_000;

  private ChildJvm(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
    this.stdin = new PrintWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8), true);
    Thread pump = new Thread(this::pumpOutput, "child-" + name + "-out");
    pump.setDaemon(true);
    pump.start();
  }

  /** Starts {@code mainClass} in a new JVM with this JVM's classpath. */
  public static ChildJvm start(String name, Class<?> mainClass, List<String> jvmArgs, List<String> args, Path logDir) {
    return start(name, mainClass.getName(), System.getProperty("java.class.path"), jvmArgs, args, logDir);
  }

  public static ChildJvm start(String name, String mainClass, String classpath, List<String> jvmArgs,
      List<String> args, Path logDir) {
    try {
      Files.createDirectories(logDir);
      Path log = logDir.resolve(name + ".log");
      for (int i = 2; Files.exists(log); i++) {   // a restarted child keeps the log of its earlier life
        log = logDir.resolve(name + "-" + i + ".log");
      }
      List<String> cmd = new ArrayList<>();
      cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      cmd.addAll(jvmArgs);
      cmd.add("-cp");
      cmd.add(classpath);
      cmd.add(mainClass);
      cmd.addAll(args);
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      return new ChildJvm(name, p, log);
    } catch (IOException e) {
      throw new UncheckedIOException("could not start " + name, e);
    }
  }

  private void pumpOutput() {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
         var out = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
      String line;
      while ((line = r.readLine()) != null) {
        out.write(line);
        out.newLine();
        out.flush();
        keep(line);
      }
    } catch (IOException e) {
      keep("EOF " + e.getMessage());
    }
    keep("EOF");
  }

  private void keep(String line) {
    while (!lines.offer(line)) {
      lines.poll();
    }
  }

  /** Waits for a line starting with {@code prefix}; returns the rest of it. */
  public String awaitLine(String prefix, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      while (true) {
        String line = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (line == null) {
          throw new IllegalStateException(name + " printed no '" + prefix + "' line within " + timeout + "; see " + log);
        }
        if (line.startsWith(prefix)) {
          return line.substring(prefix.length()).trim();
        }
        if (line.startsWith("EOF")) {
          throw new IllegalStateException(name + " exited (" + exitCodeOrRunning() + ") before '" + prefix
              + "'; see " + log);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Waits for a line containing {@code fragment} (log lines start with a timestamp); returns the line. */
  public String awaitOutput(String fragment, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      while (true) {
        String line = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (line == null) {
          throw new IllegalStateException(name + " printed no line with '" + fragment + "' within " + timeout + "; see "
              + log);
        }
        if (line.contains(fragment)) {
          return line;
        }
        if (line.startsWith("EOF")) {
          throw new IllegalStateException(name + " exited (" + exitCodeOrRunning() + ") before '" + fragment
              + "'; see " + log);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Forgets the output read so far, so a later await sees only new lines (e.g. after a restart). */
  public void skipPendingOutput() {
    lines.clear();
  }

  /** Sends a command line to the child's stdin. */
  public void command(String line) {
    stdin.println(line);
  }

  public long pid() {
    return process.pid();
  }

  public Path log() {
    return log;
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** SIGKILL, no shutdown hooks: a crash. */
  public void kill9() {
    process.destroyForcibly();
    waitExit(Duration.ofSeconds(30));
  }

  private String exitCodeOrRunning() {
    return process.isAlive() ? "running" : "exit " + process.exitValue();
  }

  private void waitExit(Duration d) {
    try {
      process.waitFor(d.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** SIGTERM, then SIGKILL after 30 s. */
  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroy();
      waitExit(Duration.ofSeconds(30));
      if (process.isAlive()) {
        kill9();
      }
    }
  }
}
