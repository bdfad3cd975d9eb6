package dev.sluice.broker.capture;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.FatalException;
import java.util.List;

/**
 * The upstream PostgreSQL cannot be captured as it is configured; the message says what to change.
 *
 * <pre>{@code
 * throw UpstreamMisconfiguredException.walLevel("replica");
 * }</pre>
 */
public final class UpstreamMisconfiguredException extends FatalException {

  /** The other way out of a publication Sluice cannot copy exactly. */
  private static final String OWN_PUBLICATION = ", or give Sluice a publication of its own (capture.publication;"
      + " one that does not exist is created FOR ALL TABLES)";

  private final String setting;

  UpstreamMisconfiguredException(String setting, String message) {
    super(ErrorCode.UPSTREAM_MISCONFIGURED, message);
    this.setting = setting;
  }

  /** What is wrong: {@code wal_level}, {@code privilege}, {@code publication}, {@code server_version}. */
  public String setting() {
    return setting;
  }

  static UpstreamMisconfiguredException walLevel(String actual) {
    return new UpstreamMisconfiguredException("wal_level", "wal_level is '" + actual
        + "'; set wal_level = logical in postgresql.conf and restart PostgreSQL");
  }

  static UpstreamMisconfiguredException missingReplication(String role) {
    return new UpstreamMisconfiguredException("privilege", "role " + role
        + " lacks the REPLICATION privilege needed for a logical replication slot; as a superuser run: ALTER ROLE "
        + role + " REPLICATION; (or connect as a superuser)");
  }

  static UpstreamMisconfiguredException cannotCreatePublication(String role, String publication, String cause) {
    return new UpstreamMisconfiguredException("privilege", "publication " + publication
        + " does not exist and role " + role + " cannot create it (" + cause + "); as a superuser run: "
        + "CREATE PUBLICATION " + publication + " FOR ALL TABLES; or create it FOR TABLE with the tables to capture");
  }

  static UpstreamMisconfiguredException publishedViaRoot(String publication) {
    return new UpstreamMisconfiguredException("publication", "publication " + publication + " publishes the changes"
        + " of partitions under their root (publish_via_partition_root = true), but Sluice captures and snapshots"
        + " each partition as a table of its own; run ALTER PUBLICATION " + publication + " SET"
        + " (publish_via_partition_root = false)" + OWN_PUBLICATION);
  }

  static UpstreamMisconfiguredException filteredTables(String publication, List<String> tables) {
    return new UpstreamMisconfiguredException("publication", "publication " + publication + " publishes "
        + String.join(", ", tables) + " with a row filter (WHERE) or a column list, but Sluice captures and snapshots"
        + " whole rows of whole tables: a snapshot would copy rows and columns the log never updates; publish those"
        + " tables whole (ALTER PUBLICATION " + publication + " SET TABLE ... without WHERE or columns)"
        + OWN_PUBLICATION);
  }

  static UpstreamMisconfiguredException serverVersion(int versionNum) {
    return new UpstreamMisconfiguredException("server_version", "PostgreSQL server version " + versionNum
        + " is too old; capture needs PostgreSQL 12 or newer");
  }

  static UpstreamMisconfiguredException wrongSlotPlugin(String slot, String plugin) {
    return new UpstreamMisconfiguredException("slot", "replication slot " + slot + " uses output plugin '" + plugin
        + "', not pgoutput; drop it (SELECT pg_drop_replication_slot('" + slot + "')) or configure another --slot");
  }
}
