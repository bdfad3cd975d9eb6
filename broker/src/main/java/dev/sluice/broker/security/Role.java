package dev.sluice.broker.security;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * A named set of {@link Permission}s a principal holds. Table patterns limit the {@code reader}
 * permissions ({@link Permission#STREAM}, {@link Permission#SCHEMA_READ}) to the tables they match.
 *
 * <pre>{@code
 * Role.parse("operator").grants(Permission.CHANGEFEED_WRITE);   // true
 * }</pre>
 */
public enum Role {
  /** Everything. */
  ADMIN(EnumSet.complementOf(EnumSet.of(Permission.PUBLIC))),
  /** Runs hosted changefeeds and drains nodes; reads the node's state. */
  OPERATOR(EnumSet.of(Permission.AUTHENTICATED, Permission.STATUS, Permission.CHANGEFEED_WRITE, Permission.DRAIN)),
  /** Streams and reads the schema of the tables its patterns match (a dispatcher, {@code sluice tail}). */
  READER(EnumSet.of(Permission.AUTHENTICATED, Permission.STREAM, Permission.SCHEMA_READ)),
  /** Scrapes {@code /metrics}. */
  METRICS(EnumSet.of(Permission.AUTHENTICATED, Permission.METRICS));

  private final Set<Permission> permissions;

  Role(Set<Permission> permissions) {
    this.permissions = Set.copyOf(permissions);
  }

  public boolean grants(Permission p) {
    return p == Permission.PUBLIC || permissions.contains(p);
  }

  /** The role named {@code name} (case-insensitive), or an error listing the roles. */
  public static Role parse(String name) {
    for (Role r : values()) {
      if (r.name().equalsIgnoreCase(name)) {
        return r;
      }
    }
    throw new IllegalArgumentException("unknown role \"" + name + "\"; roles are admin, operator, reader, metrics");
  }

  /** The name as configured: lower case. */
  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
