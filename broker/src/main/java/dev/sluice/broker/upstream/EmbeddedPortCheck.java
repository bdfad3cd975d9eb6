package dev.sluice.broker.upstream;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * Makes sure the port of the embedded PostgreSQL is its own: free before it starts, and once started,
 * answered by the server on this data directory and no other. Another PostgreSQL on the port would
 * otherwise answer zonky's start-up probe, so the broker would report "started" and then capture a
 * database that is not its own (or fail to log in to it).
 *
 * <pre>{@code
 * EmbeddedPortCheck.requireFree(8302);                       // before start
 * EmbeddedPortCheck.requireOwnServer(dataDir, 8302);         // after start
 * }</pre>
 */
final class EmbeddedPortCheck {

  static final String HOST = "127.0.0.1";
  private static final int PROBE_TIMEOUT_MS = 2000;
  /** PostgreSQL's SSLRequest code: a server answers one byte, 'S' or 'N', to it before any login. */
  private static final int SSL_REQUEST_CODE = 80877103;
  private static final String HOW = "choose another port with --embedded-port, SLUICE_UPSTREAM_EMBEDDED_PORT or"
      + " upstream.embeddedPort in the configuration file";

  private EmbeddedPortCheck() {}

  /**
   * @throws IOException naming the port, what answers on it and what to do, when it is taken
   */
  static void requireFree(int port) throws IOException {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(HOST, port));
    } catch (BindException e) {
      if (answersAsPostgres(port)) {
        throw new IOException("port " + port + " on " + HOST + " (upstream.embeddedPort) is already answered by another"
            + " PostgreSQL server, not the embedded one of this broker: stop that server or " + HOW, e);
      }
      throw new IOException("port " + port + " on " + HOST + " (upstream.embeddedPort) is already in use by another"
          + " process (ss -ltnp 'sport = :" + port + "' names it): stop it or " + HOW, e);
    }
  }

  /**
   * The server answering on {@code port} is the one on {@code dataDir}: its postmaster is alive, and a
   * connection to the port reaches that data directory.
   *
   * @throws IOException naming the port and what answers on it instead
   */
  static void requireOwnServer(Path dataDir, int port) throws IOException {
    Path pidFile = dataDir.resolve("postmaster.pid");
    List<String> lines = Files.exists(pidFile) ? Files.readAllLines(pidFile) : List.of();
    boolean alive = !lines.isEmpty() && ProcessHandle.of(parsePid(lines.get(0))).map(ProcessHandle::isAlive)
        .orElse(false);
    String answering;
    try (Connection c = DriverManager.getConnection("jdbc:postgresql://" + HOST + ":" + port
        + "/postgres?connectTimeout=5", UpstreamConfig.EMBEDDED_USER, null);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SHOW data_directory")) {
      rs.next();
      answering = rs.getString(1);
    } catch (SQLException e) {
      throw new IOException("port " + port + " on " + HOST + " does not answer as the embedded PostgreSQL on " + dataDir
          + (alive ? "" : ", which did not stay up") + " (" + e.getMessage() + "): another PostgreSQL holds the port;"
          + " stop it or " + HOW, e);
    }
    if (alive && sameDirectory(Path.of(answering), dataDir)) {
      return;
    }
    throw new IOException("port " + port + " on " + HOST + " is answered by another PostgreSQL (data directory "
        + answering + "), not the embedded one on " + dataDir + (alive ? "" : ", which did not stay up")
        + ": stop that server or " + HOW);
  }

  private static boolean sameDirectory(Path a, Path b) {
    try {
      return a.toRealPath().equals(b.toRealPath());
    } catch (IOException e) {
      return a.toAbsolutePath().normalize().equals(b.toAbsolutePath().normalize());
    }
  }

  private static long parsePid(String line) {
    try {
      return Long.parseLong(line.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Whether whatever listens on {@code port} answers PostgreSQL's SSLRequest. */
  static boolean answersAsPostgres(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(HOST, port), PROBE_TIMEOUT_MS);
      s.setSoTimeout(PROBE_TIMEOUT_MS);
      DataOutputStream out = new DataOutputStream(s.getOutputStream());
      out.writeInt(8);
      out.writeInt(SSL_REQUEST_CODE);
      out.flush();
      int b = new DataInputStream(s.getInputStream()).read();
      return b == 'S' || b == 'N';
    } catch (IOException e) {
      return false;
    }
  }
}
