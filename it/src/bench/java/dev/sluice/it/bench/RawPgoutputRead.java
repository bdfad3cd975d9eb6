package dev.sluice.it.bench;

import dev.sluice.broker.capture.CaptureConfig;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.replication.PGReplicationStream;

/**
 * The physical limit of a capture on this machine: a pgoutput reader (PgJDBC's replication stream,
 * protocol 1) that only counts Insert/Update/Delete messages, decoding nothing and storing nothing. It
 * reads what the walsender can send, so Sluice ÷ this says how close capture comes to what PostgreSQL
 * delivers, independent of the transport's cost (over loopback TCP the walsender's one {@code send()} per
 * message bounds every reader).
 *
 * <pre>{@code
 * double[] r = RawPgoutputRead.untilMarker(pg.jdbcUrl(), "bench_raw", markerOid, () -> { });   // {rows, s, start-up s}
 * }</pre>
 */
final class RawPgoutputRead {

  private RawPgoutputRead() {}

  /**
   * Reads {@code slot} from its start until the Insert into the table of {@code markerOid};
   * {rows, seconds from streaming to the marker, seconds to start streaming}. {@code onStreaming} runs once
   * the stream has started (a check of how the walsender serves it, say).
   */
  static double[] untilMarker(String jdbcUrl, String slot, long markerOid, Runnable onStreaming) throws SQLException {
    Properties p = new Properties();
    PGProperty.USER.set(p, "postgres");
    PGProperty.ASSUME_MIN_SERVER_VERSION.set(p, "9.4");
    PGProperty.REPLICATION.set(p, "database");
    PGProperty.PREFER_QUERY_MODE.set(p, "simple");
    long t0 = System.nanoTime();
    try (Connection c = DriverManager.getConnection(jdbcUrl, p)) {
      PGReplicationStream stream = c.unwrap(PGConnection.class).getReplicationAPI().replicationStream().logical()
          .withSlotName(slot).withSlotOption("proto_version", "1")
          .withSlotOption("publication_names", CaptureConfig.DEFAULT_PUBLICATION)
          .withStatusInterval(1, TimeUnit.SECONDS).start();
      long streaming = System.nanoTime();
      onStreaming.run();
      long deadline = streaming + TimeUnit.MINUTES.toNanos(30);
      long rows = 0;
      while (true) {
        ByteBuffer m = stream.readPending();
        if (m == null) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException("the raw reader did not see the marker row within 30 min (" + rows + " rows)");
          }
          LockSupport.parkNanos(100_000);
          continue;
        }
        byte type = m.get(m.position());
        if (type == 'I' || type == 'U' || type == 'D') {
          rows++;
          if (type == 'I' && (m.getInt(m.position() + 1) & 0xFFFF_FFFFL) == markerOid) {
            return new double[] {rows, (System.nanoTime() - streaming) / 1e9, (streaming - t0) / 1e9};
          }
        }
      }
    }
  }
}
