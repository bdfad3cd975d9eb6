package dev.sluice.dispatcher.sink;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One JDBC sink's fencing token in the target's {@code sluice_fence} table (see {@link JdbcUpsertSink}, "Fencing"): the
 * sink claims its token when it opens, and every transaction it writes first locks the changefeed's row and compares,
 * so once a newer owner claimed a higher token, the older writer's transaction is rolled back whole and
 * {@link FencedOutException} stops it. An unfenced sink (token 0) only checks at open that nobody holds one. Not
 * thread-safe: the sink's applier thread.
 *
 * <pre>{@code
 * SinkFence fence = new SinkFence(config, Dialect.POSTGRESQL, "public");
 * fence.claim(connection, tableOptions);   // at open, before the progress is read
 * fence.guard(connection);                 // first in every target transaction
 * connection.commit();
 * fence.transactionEnded();
 * }</pre>
 */
final class SinkFence {

  private static final Logger LOG = LoggerFactory.getLogger(JdbcUpsertSink.class);

  private final JdbcSinkConfig config;
  private final Dialect dialect;
  /** The fence table, qualified and quoted. */
  private final String table;
  /** Whether the open target transaction holds the fence row's lock (checked this transaction already). */
  private boolean locked;

  SinkFence(JdbcSinkConfig config, Dialect dialect, String homeSchema) {
    this.config = config;
    this.dialect = dialect;
    this.table = dialect.qualified(homeSchema, JdbcSinkConfig.FENCE_TABLE);
  }

  /**
   * Claims this writer's token (creating the table when missing): refused when a higher one is held; an unfenced
   * writer only checks that none is. Commits.
   */
  void claim(Connection connection, String tableOptions) throws SQLException {
    try (Statement st = connection.createStatement()) {
      st.execute(dialect.createFenceTable(table, tableOptions));
    }
    connection.commit();
    long token = config.fenceToken();
    long held = lockedToken(connection);
    if (held > token) {
      connection.rollback();
      throw fencedOut(held);
    }
    if (token > 0 && held < token) {
      String sql = held < 0
          ? "INSERT INTO " + table + " (changefeed_id, fence_token, updated_at) VALUES (?, ?, " + dialect.now() + ")"
          : "UPDATE " + table + " SET fence_token = ?, updated_at = " + dialect.now() + " WHERE changefeed_id = ?";
      try (PreparedStatement ps = connection.prepareStatement(sql)) {
        ps.setString(held < 0 ? 1 : 2, config.changefeedId());
        ps.setLong(held < 0 ? 2 : 1, token);
        ps.executeUpdate();
      }
      LOG.atInfo().addKeyValue("changefeedId", config.changefeedId()).addKeyValue("fenceToken", token)
          .addKeyValue("previousToken", held).log("JDBC sink claimed the changefeed's fencing token");
    }
    connection.commit();
  }

  /** First in every fenced transaction: locks the fence row, refuses (rolling back) when a newer owner holds it. */
  void guard(Connection connection) throws SQLException {
    if (config.fenceToken() == 0 || locked) {
      return;   // unfenced: checked once at open
    }
    long held = lockedToken(connection);
    if (held > config.fenceToken()) {
      connection.rollback();
      throw fencedOut(held);
    }
    locked = true;
  }

  /** The target transaction committed or rolled back: the next one locks the row again. */
  void transactionEnded() {
    locked = false;
  }

  /** The claimed token, its row locked until the transaction ends; -1 when none was claimed. */
  private long lockedToken(Connection connection) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement("SELECT fence_token FROM " + table
        + " WHERE changefeed_id = ? FOR UPDATE")) {
      ps.setString(1, config.changefeedId());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : -1;
      }
    }
  }

  private FencedOutException fencedOut(long held) {
    LOG.atWarn().addKeyValue("changefeedId", config.changefeedId()).addKeyValue("fenceToken", config.fenceToken())
        .addKeyValue("heldToken", held).log("JDBC sink refused a write: a newer owner holds a higher fencing token");
    return new FencedOutException(config.changefeedId(), config.fenceToken(), held, "the target's "
        + JdbcSinkConfig.FENCE_TABLE);
  }
}
