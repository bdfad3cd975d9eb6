package dev.sluice.broker.upstream;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL left running on the embedded upstream's data directory by a broker that was killed
 * ({@code kill -9}: zonky's shutdown hook never ran). It is stopped before the new broker starts its own:
 * first a fast shutdown (SIGINT: PostgreSQL disconnects every client, rolls back their open transactions
 * and writes a checkpoint), and if that has not ended it within {@code fastWait}, an immediate shutdown
 * (SIGQUIT: no checkpoint; the next start replays the WAL, committed data is kept). A smart shutdown
 * (SIGTERM) is never used: it waits for every client, so one {@code psql} left open blocked the restart.
 *
 * <pre>{@code
 * OrphanedPostmaster.find(dataDir).ifPresent(p -> p.stop(OrphanedPostmaster.FAST_WAIT, OrphanedPostmaster.IMMEDIATE_WAIT));
 * }</pre>
 *
 * @param pid     the postmaster's pid, from {@code postmaster.pid}
 * @param dataDir the data directory it serves
 */
record OrphanedPostmaster(long pid, Path dataDir) {

  private static final Logger log = LoggerFactory.getLogger(OrphanedPostmaster.class);
  /** A fast shutdown ends in a checkpoint: time enough to write the dirty buffers of a small database. */
  static final Duration FAST_WAIT = Duration.ofSeconds(30);
  static final Duration IMMEDIATE_WAIT = Duration.ofSeconds(15);

  /**
   * The postmaster running on {@code dataDir}, if {@code postmaster.pid} names a live {@code postgres}
   * process for this directory (a stale pid file is left alone: PostgreSQL replaces it on start).
   */
  static Optional<OrphanedPostmaster> find(Path dataDir) throws IOException {
    Path pidFile = dataDir.resolve("postmaster.pid");
    if (!Files.exists(pidFile)) {
      return Optional.empty();
    }
    List<String> lines = Files.readAllLines(pidFile);
    if (lines.size() < 2 || !Path.of(lines.get(1)).toAbsolutePath().equals(dataDir)) {
      return Optional.empty();
    }
    long pid;
    try {
      pid = Long.parseLong(lines.get(0).trim());
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
    return ProcessHandle.of(pid)
        .filter(p -> p.info().command().map(c -> c.endsWith("postgres")).orElse(false))
        .map(p -> new OrphanedPostmaster(pid, dataDir));
  }

  /**
   * Stops it: a fast shutdown, then an immediate one when the first has not ended within {@code fastWait}.
   *
   * @throws IOException when it still runs after both (its pid and what to do are in the message)
   */
  void stop(Duration fastWait, Duration immediateWait) throws IOException {
    ProcessHandle process = ProcessHandle.of(pid).orElse(null);
    if (process == null) {
      return;
    }
    long started = System.nanoTime();
    log.atWarn().addKeyValue("pid", pid).addKeyValue("dataDir", dataDir)
        .log("a PostgreSQL from a previous broker run is still running on the data directory; stopping it with a"
            + " fast shutdown (SIGINT): its clients are disconnected and their open transactions rolled back");
    signal("INT");
    if (exited(process, fastWait)) {
      log.atInfo().addKeyValue("pid", pid).addKeyValue("tookMs", elapsedMs(started))
          .log("the previous PostgreSQL stopped (fast shutdown)");
      return;
    }
    log.atWarn().addKeyValue("pid", pid).addKeyValue("waitedMs", elapsedMs(started))
        .log("the previous PostgreSQL did not finish its fast shutdown within " + fastWait.toSeconds() + " s; sending"
            + " an immediate shutdown (SIGQUIT): no checkpoint, the next start replays the WAL (committed data is kept)");
    signal("QUIT");
    if (exited(process, immediateWait)) {
      log.atInfo().addKeyValue("pid", pid).addKeyValue("tookMs", elapsedMs(started))
          .log("the previous PostgreSQL stopped (immediate shutdown)");
      return;
    }
    throw new IOException("the previous PostgreSQL (pid " + pid + ") on " + dataDir + " did not stop within "
        + (fastWait.toSeconds() + immediateWait.toSeconds()) + " s of a fast and then an immediate shutdown; stop it"
        + " (kill -QUIT " + pid + ", or kill -9 it and its child processes) and start the broker again");
  }

  /** Sends {@code SIG<name>} (Java can send only TERM and KILL itself), through the shell's kill builtin. */
  private void signal(String name) throws IOException {
    Process kill = new ProcessBuilder("sh", "-c", "kill -s " + name + " " + pid).redirectErrorStream(true).start();
    try {
      if (!kill.waitFor(10, TimeUnit.SECONDS)) {
        kill.destroyForcibly();
        throw new IOException("could not send SIG" + name + " to the previous PostgreSQL (pid " + pid + "): kill hung");
      }
      String out = new String(kill.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip();
      if (kill.exitValue() != 0 && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
        throw new IOException("could not send SIG" + name + " to the previous PostgreSQL (pid " + pid + "): " + out);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while stopping the previous PostgreSQL (pid " + pid + ")", e);
    }
  }

  private static boolean exited(ProcessHandle process, Duration wait) throws IOException {
    try {
      process.onExit().get(wait.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (TimeoutException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while stopping the previous PostgreSQL (pid " + process.pid() + ")", e);
    } catch (ExecutionException e) {
      return !process.isAlive();
    }
  }

  private static long elapsedMs(long startedNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
  }
}
