package dev.sluice.broker.upstream;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Which PostgreSQL the broker captures: an external one by JDBC URL, or (the default) an embedded
 * PostgreSQL 17 that the broker starts itself, kept under {@code <data dir>/upstream}.
 *
 * <pre>{@code
 * UpstreamConfig ext = UpstreamConfig.external("jdbc:postgresql://db:5432/app", "sluice", "secret");
 * UpstreamConfig emb = UpstreamConfig.embedded(Path.of("data/upstream"), UpstreamConfig.DEFAULT_EMBEDDED_PORT);
 * }</pre>
 *
 * <p>A PostgreSQL on the same host is best reached through its Unix-domain socket (capture reads about
 * twice as fast as over loopback TCP, docs/CAPTURE.md): {@link #viaUnixSocket} adds PgJDBC's
 * {@code socketFactory} parameters for {@link UnixSocketFactory} to a URL.
 *
 * @param jdbcUrl         {@code jdbc:postgresql://host:port/db}, or {@code null} for the embedded upstream
 * @param user            role to connect as, or {@code null} to take it from the URL (embedded: postgres)
 * @param password        its password, or {@code null}
 * @param embeddedDataDir data directory of the embedded PostgreSQL (kept across restarts)
 * @param embeddedPort    port of the embedded PostgreSQL on 127.0.0.1 (default {@value #DEFAULT_EMBEDDED_PORT},
 *                        next to the broker's 8300/8301, so {@code psql -h 127.0.0.1 -p 8302 -U postgres} works)
 */
public record UpstreamConfig(String jdbcUrl, String user, String password, Path embeddedDataDir, int embeddedPort) {

  public static final int DEFAULT_EMBEDDED_PORT = 8302;
  public static final String EMBEDDED_USER = "postgres";
  static final String UNIX_SOCKET_FACTORY = UnixSocketFactory.class.getName();

  public UpstreamConfig {
    if (jdbcUrl == null) {
      Objects.requireNonNull(embeddedDataDir, "embeddedDataDir (required for the embedded upstream)");
    } else if (!jdbcUrl.startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException("upstream must be a jdbc:postgresql:// URL, got '" + jdbcUrl + "'");
    } else if (UNIX_SOCKET_FACTORY.equals(queryParameter(jdbcUrl, "socketFactory"))
        && Objects.requireNonNullElse(queryParameter(jdbcUrl, "socketFactoryArg"), "").isBlank()) {
      throw new IllegalArgumentException("upstream URL names socketFactory=" + UNIX_SOCKET_FACTORY
          + " but no socketFactoryArg: add &socketFactoryArg=<the server's socket directory or .s.PGSQL.<port> file>,"
          + " e.g. /var/run/postgresql");
    }
    if (embeddedPort < 1 || embeddedPort > 65535) {
      throw new IllegalArgumentException("embeddedPort must be in 1..65535, got " + embeddedPort);
    }
  }

  /**
   * {@code jdbcUrl} with PgJDBC connecting through the Unix-domain socket {@code socket} (a socket
   * file, or the server's socket directory: the URL's port then picks {@code .s.PGSQL.<port>}).
   *
   * <pre>{@code
   * viaUnixSocket("jdbc:postgresql://localhost:5432/app", Path.of("/var/run/postgresql"))
   * // jdbc:postgresql://localhost:5432/app?socketFactory=dev.sluice.broker.upstream.UnixSocketFactory&socketFactoryArg=/var/run/postgresql
   * }</pre>
   */
  public static String viaUnixSocket(String jdbcUrl, Path socket) {
    String arg = java.net.URLEncoder.encode(socket.toAbsolutePath().toString(), java.nio.charset.StandardCharsets.UTF_8);
    return jdbcUrl + (jdbcUrl.indexOf('?') < 0 ? "?" : "&") + "socketFactory=" + UNIX_SOCKET_FACTORY
        + "&socketFactoryArg=" + arg;
  }

  /** The Unix-domain socket this URL connects through, if it names {@link UnixSocketFactory}. */
  public java.util.Optional<String> unixSocket() {
    if (jdbcUrl == null || !UNIX_SOCKET_FACTORY.equals(queryParameter(jdbcUrl, "socketFactory"))) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.ofNullable(queryParameter(jdbcUrl, "socketFactoryArg"));
  }

  private static String queryParameter(String url, String name) {
    int q = url.indexOf('?');
    if (q < 0) {
      return null;
    }
    for (String pair : url.substring(q + 1).split("&")) {
      int eq = pair.indexOf('=');
      String key = eq < 0 ? pair : pair.substring(0, eq);
      if (key.equals(name)) {
        return eq < 0 ? "" : java.net.URLDecoder.decode(pair.substring(eq + 1), java.nio.charset.StandardCharsets.UTF_8);
      }
    }
    return null;
  }

  public static UpstreamConfig external(String jdbcUrl, String user, String password) {
    Objects.requireNonNull(jdbcUrl, "jdbcUrl");
    return new UpstreamConfig(jdbcUrl, user, password, null, DEFAULT_EMBEDDED_PORT);
  }

  public static UpstreamConfig embedded(Path dataDir, int port) {
    return new UpstreamConfig(null, EMBEDDED_USER, null, dataDir, port);
  }

  public boolean isEmbedded() {
    return jdbcUrl == null;
  }

  /**
   * The URL without query parameters (which may hold a password), for logs and status; with the
   * Unix-domain socket it goes through, if any.
   */
  public String displayUrl() {
    if (jdbcUrl == null) {
      return "embedded:" + embeddedDataDir;
    }
    int q = jdbcUrl.indexOf('?');
    String bare = q < 0 ? jdbcUrl : jdbcUrl.substring(0, q);
    return unixSocket().map(socket -> bare + " via unix socket " + socket).orElse(bare);
  }

  @Override
  public String toString() {
    return "UpstreamConfig[" + displayUrl() + ", user=" + user + "]";
  }
}
