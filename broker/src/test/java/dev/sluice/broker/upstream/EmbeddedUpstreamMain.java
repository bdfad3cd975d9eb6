package dev.sluice.broker.upstream;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

/**
 * Child-JVM entry point for {@link EmbeddedUpstreamTest}: starts the embedded upstream, writes a
 * marker table, prints READY and waits to be killed (its PostgreSQL is then left running).
 */
public final class EmbeddedUpstreamMain {

  private EmbeddedUpstreamMain() {}

  public static void main(String[] args) throws Exception {
    EmbeddedUpstream up = EmbeddedUpstream.start(Path.of(args[0]), Integer.parseInt(args[1]));
    try (Connection c = DriverManager.getConnection(up.jdbcUrl(), "postgres", null); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE IF NOT EXISTS kept (v text)");
      s.execute("INSERT INTO kept VALUES ('" + args[2] + "')");
    }
    System.out.println("READY");
    System.out.flush();
    Thread.currentThread().join(); // until killed
  }
}
