package dev.sluice.broker.security;

import dev.sluice.dispatcher.changefeed.TableFilter;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * Who made a request, once authenticated: a configured name, its roles and the tables its reader
 * permissions reach.
 *
 * <pre>{@code
 * Principal p = new Principal("orders-app", Set.of(Role.READER), TableFilter.of("app.*"));
 * p.may(Permission.STREAM);          // true
 * p.mayRead("billing.invoices");     // false
 * }</pre>
 *
 * @param name   the configured principal name (logged and audited; never a secret)
 * @param roles  at least one role
 * @param tables the tables {@link Permission#STREAM} and {@link Permission#SCHEMA_READ} reach; null = every table
 */
public record Principal(String name, Set<Role> roles, TableFilter tables) {

  /** Everyone, when the node runs without authentication (loopback or {@code --insecure}). */
  public static final Principal ANONYMOUS = new Principal("anonymous", Set.of(Role.ADMIN), null);

  public Principal {
    Objects.requireNonNull(name, "name");
    if (roles == null || roles.isEmpty()) {
      throw new IllegalArgumentException("principal " + name + " needs at least one role");
    }
    roles = Set.copyOf(EnumSet.copyOf(roles));
  }

  public boolean may(Permission p) {
    return roles.stream().anyMatch(r -> r.grants(p));
  }

  /** Whether the reader permissions reach {@code qualifiedName} ("schema.table"); admins reach every table. */
  public boolean mayRead(String qualifiedName) {
    return roles.contains(Role.ADMIN) || tables == null || tables.matches(qualifiedName);
  }

  public boolean mayRead(String schema, String table) {
    return mayRead(schema + "." + table);
  }

  /** The patterns as configured, for messages: {@code [app.*]}, or {@code [*.*]} for every table. */
  public String tablesText() {
    return roles.contains(Role.ADMIN) || tables == null ? "[*.*]" : tables.rules().toString();
  }
}
