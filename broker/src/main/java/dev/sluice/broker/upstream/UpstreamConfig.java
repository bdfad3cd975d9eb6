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

  public UpstreamConfig {
    if (jdbcUrl == null) {
      Objects.requireNonNull(embeddedDataDir, "embeddedDataDir (required for the embedded upstream)");
    } else if (!jdbcUrl.startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException("upstream must be a jdbc:postgresql:// URL, got '" + jdbcUrl + "'");
    }
    if (embeddedPort < 1 || embeddedPort > 65535) {
      throw new IllegalArgumentException("embeddedPort must be in 1..65535, got " + embeddedPort);
    }
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

  /** The URL without query parameters (which may hold a password), for logs and status. */
  public String displayUrl() {
    if (jdbcUrl == null) {
      return "embedded:" + embeddedDataDir;
    }
    int q = jdbcUrl.indexOf('?');
    return q < 0 ? jdbcUrl : jdbcUrl.substring(0, q);
  }

  @Override
  public String toString() {
    return "UpstreamConfig[" + displayUrl() + ", user=" + user + "]";
  }
}
