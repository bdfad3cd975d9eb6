package dev.sluice.broker.upstream;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
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
 * The default upstream of {@code sluice server}: a PostgreSQL 17 (zonky binaries) with
 * {@code wal_level = logical}, its data kept under {@code <data dir>/upstream} across restarts, listening on
 * 127.0.0.1 at a fixed port (default 8302) so you can {@code psql -h 127.0.0.1 -p 8302 -U postgres}.
 *
 * <p>When a previous broker was killed ({@code kill -9}), its PostgreSQL keeps running on the data
 * directory; it is stopped (SIGTERM, a smart shutdown its dead clients do not delay) before this one starts.
 *
 * <pre>{@code
 * try (EmbeddedUpstream up = EmbeddedUpstream.start(Path.of("data/upstream"), 8302)) {
 *   UpstreamConfig conn = up.connection();   // jdbc:postgresql://127.0.0.1:8302/postgres as postgres
 * }
 * }</pre>
 */
public final class EmbeddedUpstream implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(EmbeddedUpstream.class);
  private static final Duration STARTUP_WAIT = Duration.ofSeconds(60);

  private final EmbeddedPostgres pg;
  private final Path dataDir;
  private final int port;

  private EmbeddedUpstream(EmbeddedPostgres pg, Path dataDir, int port) {
    this.pg = pg;
    this.dataDir = dataDir;
    this.port = port;
  }

  /**
   * Starts PostgreSQL on {@code dataDir} (initialised on first use), extracting the binaries next to it.
   *
   * @throws IOException when it cannot start (port taken, directory not writable)
   */
  public static EmbeddedUpstream start(Path dataDir, int port) throws IOException {
    Path dir = dataDir.toAbsolutePath();
    Files.createDirectories(dir.getParent());
    stopOrphanedPostmaster(dir);
    EmbeddedPostgres pg = EmbeddedPostgres.builder()
        .setDataDirectory(dir)
        .setCleanDataDirectory(false)
        .setOverrideWorkingDirectory(dir.resolveSibling(dir.getFileName() + "-bin").toFile())
        .setPort(port)
        .setPGStartupWait(STARTUP_WAIT)
        .setServerConfig("listen_addresses", "127.0.0.1")
        .setServerConfig("wal_level", "logical")
        .setServerConfig("max_replication_slots", "10")
        .setServerConfig("max_wal_senders", "10")
        .start();
    EmbeddedUpstream up = new EmbeddedUpstream(pg, dir, port);
    log.atInfo().addKeyValue("jdbcUrl", up.jdbcUrl()).addKeyValue("dataDir", dir)
        .log("embedded PostgreSQL started; connect with: psql -h 127.0.0.1 -p " + port + " -U postgres");
    return up;
  }

  public String jdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
  }

  /** How capture and the demo workload connect to it. */
  public UpstreamConfig connection() {
    return UpstreamConfig.external(jdbcUrl(), UpstreamConfig.EMBEDDED_USER, null);
  }

  public Path dataDir() {
    return dataDir;
  }

  @Override
  public void close() throws IOException {
    pg.close();
  }

  /** Stops a postmaster left running on {@code dataDir} by a killed broker. */
  private static void stopOrphanedPostmaster(Path dataDir) throws IOException {
    Path pidFile = dataDir.resolve("postmaster.pid");
    if (!Files.exists(pidFile)) {
      return;
    }
    List<String> lines = Files.readAllLines(pidFile);
    if (lines.size() < 2 || !Path.of(lines.get(1)).toAbsolutePath().equals(dataDir)) {
      return;
    }
    long pid;
    try {
      pid = Long.parseLong(lines.get(0).trim());
    } catch (NumberFormatException e) {
      return;
    }
    Optional<ProcessHandle> process = ProcessHandle.of(pid)
        .filter(p -> p.info().command().map(c -> c.endsWith("postgres")).orElse(false));
    if (process.isEmpty()) {
      return; // stale pid file: PostgreSQL itself removes it on start
    }
    log.atWarn().addKeyValue("pid", pid).addKeyValue("dataDir", dataDir)
        .log("a PostgreSQL from a previous broker run is still running on the data directory; stopping it");
    process.get().destroy();
    try {
      process.get().onExit().get(STARTUP_WAIT.toSeconds(), TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while stopping the previous PostgreSQL (pid " + pid + ")", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IOException("the previous PostgreSQL (pid " + pid + ") on " + dataDir + " did not stop within "
          + STARTUP_WAIT.toSeconds() + " s; stop it and start the broker again", e);
    }
  }
}
