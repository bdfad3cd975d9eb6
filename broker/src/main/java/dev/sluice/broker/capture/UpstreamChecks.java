package dev.sluice.broker.capture;

import dev.sluice.api.error.SluiceException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;

/**
 * Checks that the upstream can be captured and turns what is wrong into an error a person can act
 * on: server version, {@code wal_level}, the role's REPLICATION privilege, the slot's state; and
 * classifies driver errors as transient (retry) or fatal.
 *
 * <pre>{@code
 * UpstreamChecks.Server server = UpstreamChecks.checkServer(catalogConnection);
 * }</pre>
 */
final class UpstreamChecks {

  static final int MIN_SERVER_VERSION = 120000;

  /** What capture learned about the server and its role. */
  record Server(int versionNum, String role, boolean superuser) {
    /** pgoutput's {@code messages} option (and so heartbeat messages) exists from PostgreSQL 14. */
    boolean supportsMessages() {
      return versionNum >= 140000;
    }
  }

  /**
   * The slot as {@code pg_replication_slots} shows it.
   *
   * @param walStatus   {@code reserved}, {@code extended}, {@code unreserved} or {@code lost}
   * @param invalidated why PostgreSQL invalidated it, or {@code null}
   */
  record SlotState(String plugin, String database, Integer activePid, String walStatus, String invalidated,
      long confirmedFlushLsn) {}

  private UpstreamChecks() {}

  static Server checkServer(Connection c) throws SQLException {
    int version;
    String walLevel;
    String role;
    boolean superuser;
    boolean replication;
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT current_setting('server_version_num')::int, current_setting('wal_level'),"
            + " r.rolname, r.rolsuper, r.rolreplication FROM pg_catalog.pg_roles r WHERE r.rolname = current_user")) {
      rs.next();
      version = rs.getInt(1);
      walLevel = rs.getString(2);
      role = rs.getString(3);
      superuser = rs.getBoolean(4);
      replication = rs.getBoolean(5);
    }
    if (version < MIN_SERVER_VERSION) {
      throw UpstreamMisconfiguredException.serverVersion(version);
    }
    if (!"logical".equals(walLevel)) {
      throw UpstreamMisconfiguredException.walLevel(walLevel);
    }
    if (!superuser && !replication) {
      throw UpstreamMisconfiguredException.missingReplication(role);
    }
    return new Server(version, role, superuser);
  }

  static Optional<SlotState> slot(Connection c, Server server, String slot) throws SQLException {
    String invalidation = server.versionNum() >= 170000 ? "invalidation_reason"
        : server.versionNum() >= 160000 ? "CASE WHEN conflicting THEN 'conflicting with recovery' END" : "NULL";
    String walStatus = server.versionNum() >= 130000 ? "wal_status" : "NULL"; // the column came with PostgreSQL 13
    try (PreparedStatement ps = c.prepareStatement("SELECT plugin, database, active_pid, " + walStatus + ", " + invalidation
        + ", confirmed_flush_lsn::text FROM pg_catalog.pg_replication_slots WHERE slot_name = ?")) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        int pid = rs.getInt(3);
        Integer activePid = rs.wasNull() ? null : pid;
        String confirmed = rs.getString(6);
        return Optional.of(new SlotState(rs.getString(1), rs.getString(2), activePid,
            rs.getString(4), rs.getString(5), confirmed == null ? 0 : dev.sluice.api.CommitTs.parseLsn(confirmed).value()));
      }
    }
  }

  /** The slot is usable, or an error saying what happened to it. */
  static void checkSlot(SlotState s, String slot, String database) {
    if (!"pgoutput".equals(s.plugin())) {
      throw UpstreamMisconfiguredException.wrongSlotPlugin(slot, s.plugin());
    }
    if (s.invalidated() != null) {
      throw ReplicationSlotLostException.invalidated(slot, s.invalidated());
    }
    if ("lost".equals(s.walStatus())) {
      throw ReplicationSlotLostException.invalidated(slot, "wal_status = lost");
    }
    if (!database.equals(s.database())) {
      throw new UpstreamMisconfiguredException("slot", "replication slot " + slot + " belongs to database "
          + s.database() + ", not " + database + "; configure another --slot or connect to " + s.database());
    }
    if (s.activePid() != null) {
      throw new UpstreamUnavailableException("replication slot " + slot + " is in use by server process "
          + s.activePid() + " (another broker with the same --slot, or a previous session not yet ended);"
          + " retrying", null);
    }
  }

  /** Maps a driver error to a transient (retry) or fatal typed error, naming what failed. */
  static SluiceException classify(SQLException e, String upstream, String doing) {
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    String msg = doing + " on " + upstream + " failed: " + e.getMessage();
    Throwable cause = e.getCause();
    if (cause != null && cause.getMessage() != null && !msg.contains(cause.getMessage())) {
      msg += " (" + cause.getMessage() + ")";   // PgJDBC's "The connection attempt failed." says nothing of why
    }
    if (state.equals("42501")) {
      return new UpstreamMisconfiguredException("privilege", msg + " (insufficient privilege; grant it or connect as"
          + " a role that has it)");
    }
    if (state.equals("28000") || state.equals("28P01")) {
      return new UpstreamMisconfiguredException("authentication", msg
          + " (check --upstream-user / --upstream-password and pg_hba.conf)");
    }
    if (state.equals("3D000")) {
      return new UpstreamMisconfiguredException("database", msg + " (the database in the JDBC URL does not exist)");
    }
    return new UpstreamUnavailableException(msg + (state.isEmpty() ? "" : " [SQLSTATE " + state + "]"), e);
  }
}
