package dev.sluice.broker.upstream;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The default upstream of {@code sluice server}: a PostgreSQL 17 (zonky binaries) with
 * {@code wal_level = logical}, its data kept under {@code <data dir>/upstream} across restarts, listening on
 * 127.0.0.1 at a fixed port (default 8302) so you can {@code psql -h 127.0.0.1 -p 8302 -U postgres}.
 *
 * <p>The broker itself (capture, demo workload) connects through the server's Unix-domain socket in
 * {@code <data dir>/upstream-socket}: logical replication reads about twice as fast as over loopback TCP
 * (docs/CAPTURE.md). Where that path would be too long for a socket address, it uses TCP.
 *
 * <p>When a previous broker was killed ({@code kill -9}), its PostgreSQL keeps running on the data
 * directory; it is stopped before this one starts, with a fast shutdown that disconnects its clients (an open
 * {@code psql} would hold a smart shutdown forever), escalated to an immediate one ({@link OrphanedPostmaster}).
 *
 * <pre>{@code
 * try (EmbeddedUpstream up = EmbeddedUpstream.start(Path.of("data/upstream"), 8302)) {
 *   UpstreamConfig conn = up.connection();   // jdbc:postgresql://127.0.0.1:8302/postgres via its socket, as postgres
 * }
 * }</pre>
 */
public final class EmbeddedUpstream implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(EmbeddedUpstream.class);
  private static final Duration STARTUP_WAIT = Duration.ofSeconds(60);
  /** Linux's sun_path holds 108 bytes with the terminating NUL; PostgreSQL refuses longer socket paths. */
  static final int MAX_SOCKET_PATH_BYTES = 107;

  private final EmbeddedPostgres pg;
  private final Path dataDir;
  private final int port;
  private final Path socketDir;   // null: TCP only

  private EmbeddedUpstream(EmbeddedPostgres pg, Path dataDir, int port, Path socketDir) {
    this.pg = pg;
    this.dataDir = dataDir;
    this.port = port;
    this.socketDir = socketDir;
  }

  /**
   * Starts PostgreSQL on {@code dataDir} (initialised on first use), extracting the binaries next to it.
   *
   * @throws IOException when it cannot start (port taken, by another PostgreSQL or any other process;
   *     directory not writable), naming the port or the path
   */
  public static EmbeddedUpstream start(Path dataDir, int port) throws IOException {
    Path dir = dataDir.toAbsolutePath();
    Files.createDirectories(dir.getParent());
    stopOrphanedPostmaster(dir);
    EmbeddedPortCheck.requireFree(port);
    Path socketDir = socketDirectory(dir, port);
    EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
        .setDataDirectory(dir)
        .setCleanDataDirectory(false)
        .setOverrideWorkingDirectory(dir.resolveSibling(dir.getFileName() + "-bin").toFile())
        .setPort(port)
        .setPGStartupWait(STARTUP_WAIT)
        .setServerConfig("listen_addresses", "127.0.0.1")
        .setServerConfig("wal_level", "logical")
        .setServerConfig("max_replication_slots", "10")
        .setServerConfig("max_wal_senders", "10");
    if (socketDir != null) {
      Files.createDirectories(socketDir);
      builder.setServerConfig("unix_socket_directories", socketDir.toString());
    } else {
      log.atWarn().addKeyValue("dataDir", dir).log("the data directory's path is too long for a Unix-domain socket"
          + " address; the broker reaches the embedded PostgreSQL over TCP (capture is slower)");
    }
    EmbeddedUpstream up = new EmbeddedUpstream(builder.start(), dir, port, socketDir);
    try {
      EmbeddedPortCheck.requireOwnServer(dir, port);
    } catch (IOException e) {
      up.close();
      throw e;
    }
    log.atInfo().addKeyValue("jdbcUrl", up.jdbcUrl()).addKeyValue("dataDir", dir)
        .addKeyValue("socketDir", socketDir == null ? "none" : socketDir.toString())
        .log("embedded PostgreSQL started; connect with: psql -h 127.0.0.1 -p " + port + " -U postgres");
    return up;
  }

  /** {@code <data dir>-socket}, or null when its {@code .s.PGSQL.<port>} would not fit a socket address. */
  static Path socketDirectory(Path dataDir, int port) {
    Path dir = dataDir.resolveSibling(dataDir.getFileName() + "-socket");
    int bytes = dir.resolve(".s.PGSQL." + port).toString().getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    return bytes <= MAX_SOCKET_PATH_BYTES ? dir : null;
  }

  public String jdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
  }

  /** How capture and the demo workload connect to it: through its Unix-domain socket where it has one. */
  public UpstreamConfig connection() {
    String url = socketDir == null ? jdbcUrl() : UpstreamConfig.viaUnixSocket(jdbcUrl(), socketDir);
    return UpstreamConfig.external(url, UpstreamConfig.EMBEDDED_USER, null);
  }

  /** The directory of its Unix-domain socket, if it has one. */
  public Optional<Path> socketDirectory() {
    return Optional.ofNullable(socketDir);
  }

  public Path dataDir() {
    return dataDir;
  }

  @Override
  public void close() throws IOException {
    pg.close();
  }

  /** Stops a postmaster left running on {@code dataDir} by a killed broker (fast, then immediate shutdown). */
  private static void stopOrphanedPostmaster(Path dataDir) throws IOException {
    Optional<OrphanedPostmaster> orphan = OrphanedPostmaster.find(dataDir);
    if (orphan.isPresent()) {
      orphan.get().stop(OrphanedPostmaster.FAST_WAIT, OrphanedPostmaster.IMMEDIATE_WAIT);
    }
  }
}
