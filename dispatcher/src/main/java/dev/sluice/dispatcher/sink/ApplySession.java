package dev.sluice.dispatcher.sink;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a JDBC sink's session applies: {@link Dialect#sessionSettings()} (the target's foreign keys and
 * triggers do not judge what the source accepted), or, when the user may not set them, the constraints
 * on and one warning naming the grant.
 */
final class ApplySession {

  private static final Logger LOG = LoggerFactory.getLogger(ApplySession.class);

  private ApplySession() {}

  /** Sets up {@code c} (autocommit off); true when the constraints are off for it. */
  static boolean prepare(Connection c, Dialect dialect, String changefeedId) throws SQLException {
    try (Statement st = c.createStatement()) {
      for (String sql : dialect.sessionSettings()) {
        st.execute(sql);
      }
      c.commit();
      return true;
    } catch (SQLException e) {
      c.rollback();
      if (!"42501".equals(e.getSQLState())) {
        throw e;
      }
      LOG.atWarn().addKeyValue("changefeedId", changefeedId).addKeyValue("sqlState", e.getSQLState())
          .log("the apply session cannot set session_replication_role = replica, so the target's foreign keys and "
              + "triggers judge every applied row (a child row applied before its parent is refused with 23503): "
              + "connect as a superuser or, on PostgreSQL 15+, GRANT SET ON PARAMETER session_replication_role TO "
              + "<sink user>; or apply in transaction mode. {}", e.getMessage());
      return false;
    }
  }
}
