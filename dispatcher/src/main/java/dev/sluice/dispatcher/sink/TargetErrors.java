package dev.sluice.dispatcher.sink;

import dev.sluice.api.error.SluiceException;
import dev.sluice.api.secret.Redactor;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.Set;

/**
 * What a target's {@link SQLException} means to a changefeed: {@link SinkUnavailableException} (retry from the
 * checkpoint) for a broken connection, a connection-class or serialization state, or a transient driver error;
 * else {@link SinkFailedException} (the change cannot get past). The message names the target (redacted), the
 * table, the row when the target refused one ({@link RejectedRowException}), the commit ts and SQL state, and the
 * driver's words capped ({@link SqlErrorText}): a 100 KB value never fills it, and no secret of the target is in it.
 *
 * <pre>{@code
 * SluiceException typed = TargetErrors.classify(e, "public.orders", 4711, config, session.broken(), true);
 * }</pre>
 */
final class TargetErrors {

  private TargetErrors() {}

  /**
   * @param broken             whether the connection is gone
   * @param constraintsRelaxed whether the apply session keeps constraints from judging rows (a foreign key
   *                           violation then hints at the warning the sink logged when it opened)
   */
  static SluiceException classify(SQLException e, String table, long ts, JdbcSinkConfig config, boolean broken,
      boolean constraintsRelaxed) {
    String state = SqlErrorText.sqlState(e);
    String what = table;
    if (e instanceof RejectedRowException r && r.table() != null) {
      what = r.table() + " " + r.row();
      ts = r.commitTs() > 0 ? r.commitTs() : ts;
    }
    // a driver may echo the password in a form of its own: every literal secret of the target is masked
    Set<String> secrets = JdbcTarget.secrets(config.jdbcUrl(), config.password());
    String driver = Redactor.redact(e instanceof RejectedRowException ? e.getMessage() : SqlErrorText.of(e), secrets);
    Throwable cause = Redactor.scrub(SqlErrorText.capped(e), secrets);
    boolean transientState = state != null && (state.startsWith("08") || state.startsWith("57P")
        || state.equals("40001") || state.equals("40P01"));
    if (broken || transientState || e instanceof SQLTransientException || e instanceof SQLRecoverableException) {
      return new SinkUnavailableException("JDBC target " + config.jdbcUrl() + " failed while applying " + what
          + " at commit ts " + ts + " (SQL state " + state + "); nothing of the batch was kept: " + driver, cause);
    }
    String hint = "23503".equals(state) && !constraintsRelaxed ? " (the apply session could not turn foreign key "
        + "checks off: see the warning when the sink opened)" : "";
    return new SinkFailedException(e instanceof RejectedRowException r && r.table() != null ? r.table() : table, ts,
        "JDBC target " + config.jdbcUrl() + " refused " + what + " at commit ts " + ts + " (SQL state " + state
            + "): " + driver + hint, cause);
  }
}
