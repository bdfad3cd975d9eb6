package dev.sluice.broker.capture;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Installs the DDL event trigger ({@link DdlCaptureSql}) when permitted and decides the
 * {@link DdlCaptureMode}: {@code EVENT_TRIGGER} when both triggers are enabled and
 * {@code sluice.ddl_capture} is in the publication, {@code RELATION_MESSAGES} otherwise (event triggers
 * need a superuser; a non-superuser role falls back, or uses triggers a superuser installed before).
 *
 * <pre>{@code
 * boolean installed = DdlCaptureInstaller.install(catalogConnection);
 * DdlCaptureMode mode = DdlCaptureInstaller.mode(catalogConnection, "sluice_pub");
 * }</pre>
 */
final class DdlCaptureInstaller {

  private static final Logger log = LoggerFactory.getLogger(DdlCaptureInstaller.class);

  private DdlCaptureInstaller() {}

  /** Installs or refreshes the capture table, functions and triggers in one transaction; false if refused. */
  static boolean install(Connection c) throws SQLException {
    boolean autoCommit = c.getAutoCommit();
    c.setAutoCommit(false);
    try (Statement s = c.createStatement()) {
      for (String sql : DdlCaptureSql.INSTALL) {
        s.execute(sql);
      }
      createTriggerIfMissing(s, DdlCaptureSql.END_TRIGGER, "ddl_command_end", "sluice.capture_ddl");
      createTriggerIfMissing(s, DdlCaptureSql.DROP_TRIGGER, "sql_drop", "sluice.capture_drop");
      c.commit();
      return true;
    } catch (SQLException e) {
      c.rollback();
      if (e.getSQLState() == null || e.getSQLState().startsWith("08")) {
        throw e; // the connection broke: not a permission question
      }
      log.atInfo().addKeyValue("sqlState", e.getSQLState())
          .log("DDL event trigger not installed (" + e.getMessage() + ")");
      return false;
    } finally {
      c.setAutoCommit(autoCommit);
    }
  }

  /** Adds {@code sluice.ddl_capture} to a publication that lists tables; false when not permitted. */
  static boolean publish(Connection c, String publication) throws SQLException {
    if (isPublished(c, publication)) {
      return true;
    }
    try (Statement s = c.createStatement()) {
      s.execute("ALTER PUBLICATION " + publication + " ADD TABLE sluice.ddl_capture");
      return true;
    } catch (SQLException e) {
      if (e.getSQLState() == null || e.getSQLState().startsWith("08")) {
        throw e;
      }
      log.atInfo().addKeyValue("publication", publication)
          .log("cannot add sluice.ddl_capture to the publication (" + e.getMessage() + ")");
      return false;
    }
  }

  /** The mode the current upstream state gives. */
  static DdlCaptureMode mode(Connection c, String publication) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT count(*) FROM pg_catalog.pg_event_trigger WHERE evtname IN (?, ?) AND evtenabled <> 'D'")) {
      ps.setString(1, DdlCaptureSql.END_TRIGGER);
      ps.setString(2, DdlCaptureSql.DROP_TRIGGER);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        if (rs.getInt(1) != 2) {
          return DdlCaptureMode.RELATION_MESSAGES;
        }
      }
    }
    return isPublished(c, publication) ? DdlCaptureMode.EVENT_TRIGGER : DdlCaptureMode.RELATION_MESSAGES;
  }

  private static boolean isPublished(Connection c, String publication) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg_catalog.pg_publication_tables"
        + " WHERE pubname = ? AND schemaname = 'sluice' AND tablename = 'ddl_capture'")) {
      ps.setString(1, publication);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  private static void createTriggerIfMissing(Statement s, String name, String event, String function)
      throws SQLException {
    try (ResultSet rs = s.executeQuery("SELECT 1 FROM pg_catalog.pg_event_trigger WHERE evtname = '" + name + "'")) {
      if (rs.next()) {
        return;
      }
    }
    s.execute(String.format(DdlCaptureSql.CREATE_TRIGGER, name, event, function));
  }
}
