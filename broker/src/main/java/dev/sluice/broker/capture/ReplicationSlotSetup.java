package dev.sluice.broker.capture;

import dev.sluice.api.CommitTs;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.postgresql.PGConnection;
import org.postgresql.replication.ReplicationSlotInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import dev.sluice.schema.TableInfo;

/**
 * Creates the publication and the replication slot when missing, and reads the initial table
 * definitions in the snapshot the slot exports, so they are exactly the tables as of the slot's
 * consistent point.
 *
 * <p>The initial version is {@code consistent point - 1}: PostgreSQL streams every transaction whose
 * commit record starts at or after the consistent point, so even one committing exactly there gets a
 * commit ts above the initial versions. {@code format_type}/{@code pg_get_expr} read the current
 * catalog cache rather than the snapshot; a type renamed during slot creation is the accepted race.
 *
 * <pre>{@code
 * ReplicationSlotSetup.ensurePublication(catalog, server, "sluice_pub");
 * ReplicationSlotSetup.Created c = ReplicationSlotSetup.createSlot(replication, catalog, "sluice_node_1", defs);
 * }</pre>
 */
final class ReplicationSlotSetup {

  private static final Logger log = LoggerFactory.getLogger(ReplicationSlotSetup.class);

  /** A new slot: where it starts and the tables as of that point. */
  record Created(long consistentPoint, long initialVersion, List<TableInfo> tables) {}

  private ReplicationSlotSetup() {}

  /**
   * Creates the publication {@code FOR ALL TABLES} when it does not exist (needs a superuser); refuses one that
   * publishes partitions' changes under their root ({@code publish_via_partition_root}): Sluice captures, snapshots
   * and copies each partition as a table of its own, so such a publication's rows would land in the root's stream
   * while the partitions' snapshots delivered them again under the partitions' names. Refuses one that filters the
   * rows or columns of a table too (a row filter, a column list): a snapshot reads every row and column.
   */
  static void ensurePublication(Connection c, UpstreamChecks.Server server, String publication) throws SQLException {
    // pubviaroot through to_jsonb: the column is PostgreSQL 13's, and 12 publishes every partition on its own
    try (PreparedStatement ps = c.prepareStatement("SELECT coalesce((pg_catalog.to_jsonb(p) ->> 'pubviaroot')::bool,"
        + " false) FROM pg_catalog.pg_publication p WHERE p.pubname = ?")) {
      ps.setString(1, publication);
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          if (rs.getBoolean(1)) {
            throw UpstreamMisconfiguredException.publishedViaRoot(publication);
          }
          List<String> filtered = filteredTables(c, publication);
          if (!filtered.isEmpty()) {
            throw UpstreamMisconfiguredException.filteredTables(publication, filtered);
          }
          return;
        }
      }
    }
    if (!server.superuser()) {
      throw UpstreamMisconfiguredException.cannotCreatePublication(server.role(), publication,
          "FOR ALL TABLES needs a superuser");
    }
    try (Statement s = c.createStatement()) {
      s.execute("CREATE PUBLICATION " + publication + " FOR ALL TABLES");
    } catch (SQLException e) {
      if ("42710".equals(e.getSQLState())) {
        return; // created concurrently (another node): fine
      }
      throw e;
    }
    log.atInfo().addKeyValue("publication", publication).log("created publication FOR ALL TABLES");
  }

  /**
   * Tables of {@code publication} published with a row filter or a column list (PostgreSQL 15), at most five: their
   * log carries some rows or some columns, while a snapshot reads, and a table info describes, all of them.
   */
  private static List<String> filteredTables(Connection c, String publication) throws SQLException {
    // through to_jsonb: prqual and prattrs are PostgreSQL 15's columns
    try (PreparedStatement ps = c.prepareStatement("SELECT pg_catalog.format('%I.%I', n.nspname, c.relname)"
        + " FROM pg_catalog.pg_publication_rel r JOIN pg_catalog.pg_publication p ON p.oid = r.prpubid"
        + " JOIN pg_catalog.pg_class c ON c.oid = r.prrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
        + " WHERE p.pubname = ?"
        + " AND ((pg_catalog.to_jsonb(r) ->> 'prqual') IS NOT NULL OR (pg_catalog.to_jsonb(r) ->> 'prattrs') IS NOT NULL)"
        + " ORDER BY 1 LIMIT 5")) {
      ps.setString(1, publication);
      List<String> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
      return out;
    }
  }

  /** Creates the slot and reads the table definitions in its exported snapshot. */
  static Created createSlot(PGConnection replication, Connection catalog, String slot, TableDefinitions definitions)
      throws SQLException {
    ReplicationSlotInfo info = replication.getReplicationAPI().createReplicationSlot().logical()
        .withSlotName(slot).withOutputPlugin("pgoutput").make();
    long cp = info.getConsistentPoint().asLong();
    long version = cp - 2; // a first commit may start at cp: keeps cp-1 free for a TRUNCATE at C-1
    List<TableInfo> tables;
    boolean autoCommit = catalog.getAutoCommit();
    catalog.setAutoCommit(false);
    try (Statement s = catalog.createStatement()) {
      s.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
      s.execute("SET TRANSACTION SNAPSHOT '" + info.getSnapshotName() + "'");
      tables = definitions.readAll(catalog, version);
      catalog.commit();
    } catch (SQLException e) {
      catalog.rollback();
      throw e;
    } finally {
      catalog.setAutoCommit(autoCommit);
    }
    log.atInfo().addKeyValue("slot", slot).addKeyValue("consistentPoint", CommitTs.of(cp).toLsnString())
        .addKeyValue("tables", tables.size()).log("created replication slot");
    return new Created(cp, version, tables);
  }

  static void dropSlot(Connection catalog, String slot) throws SQLException {
    try (PreparedStatement ps = catalog.prepareStatement("SELECT pg_catalog.pg_drop_replication_slot(?)")) {
      ps.setString(1, slot);
      ps.execute();
    }
  }

  static String currentDatabase(Connection c) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT current_database()")) {
      rs.next();
      return rs.getString(1);
    }
  }
}
