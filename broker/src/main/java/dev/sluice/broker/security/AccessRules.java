package dev.sluice.broker.security;

import static java.util.Map.entry;

import java.util.Map;

/**
 * The one table of what every admin route and every RPC requires. A route or RPC missing here cannot
 * be served: the admin API and the gRPC endpoint ask for each one's rule when they register it and
 * refuse to start without one, and {@code AccessMatrixTest} derives the routes and RPCs from the
 * OpenAPI document and the proto and checks each against this table.
 *
 * <pre>{@code
 * AccessRules.route("POST", "/api/v1/changefeeds");                  // CHANGEFEED_WRITE
 * AccessRules.rpc("sluice.v1.EventService/Connect");                 // STREAM
 * }</pre>
 */
public final class AccessRules {

  private static final String CF = "/api/v1/changefeeds";

  /** {@code "METHOD /openapi/path"} to its permission. */
  static final Map<String, Permission> ROUTES = Map.ofEntries(
      entry("GET /healthz", Permission.PUBLIC),
      entry("GET /readyz", Permission.PUBLIC),
      entry("GET /", Permission.AUTHENTICATED),
      entry("GET /metrics", Permission.METRICS),
      entry("GET " + CF, Permission.STATUS),
      entry("POST " + CF, Permission.CHANGEFEED_WRITE),
      entry("GET " + CF + "/{id}", Permission.STATUS),
      entry("PATCH " + CF + "/{id}", Permission.CHANGEFEED_WRITE),
      entry("PUT " + CF + "/{id}", Permission.CHANGEFEED_WRITE),
      entry("DELETE " + CF + "/{id}", Permission.CHANGEFEED_WRITE),
      entry("POST " + CF + "/{id}/pause", Permission.CHANGEFEED_WRITE),
      entry("POST " + CF + "/{id}/resume", Permission.CHANGEFEED_WRITE),
      entry("POST " + CF + "/{id}/snapshot", Permission.CHANGEFEED_WRITE),
      entry("POST " + CF + "/{id}/snapshot/pause", Permission.CHANGEFEED_WRITE),
      entry("POST " + CF + "/{id}/snapshot/resume", Permission.CHANGEFEED_WRITE),
      entry("POST " + CF + "/{id}/snapshot/cancel", Permission.CHANGEFEED_WRITE),
      entry("GET " + CF + "/{id}/deletion/{generation}", Permission.STATUS),
      entry("GET /api/v1/dispatchers", Permission.STATUS),
      entry("GET /api/v1/snapshots", Permission.STATUS),
      entry("DELETE /api/v1/snapshots/{dispatcher_id}", Permission.CHANGEFEED_WRITE),
      entry("GET /api/v1/captures", Permission.STATUS),
      entry("GET /api/v1/tables", Permission.STATUS),   // every table's name: the operator's dry run of rules
      entry("GET /api/v1/members", Permission.STATUS),
      entry("GET /api/v1/members/{id}", Permission.STATUS),
      entry("POST /api/v1/members/{id}/drain", Permission.DRAIN),
      entry("GET /api/v1/config", Permission.STATUS),
      entry("PATCH /api/v1/config", Permission.CONFIG_WRITE));

  /** Full gRPC method name to its permission. */
  static final Map<String, Permission> RPCS = Map.of(
      "sluice.v1.EventService/Connect", Permission.STREAM,
      "sluice.v1.EventService/GetTopology", Permission.AUTHENTICATED,
      "sluice.v1.EventService/GetTableSchema", Permission.SCHEMA_READ,
      "sluice.v1.EventService/ListTables", Permission.SCHEMA_READ);

  private AccessRules() {}

  /**
   * The permission of the admin route {@code method path} (OpenAPI form, {@code {id}} parameters).
   *
   * @throws IllegalStateException when the route has no rule: add one here (and to docs/SECURITY.md)
   */
  public static Permission route(String method, String path) {
    Permission p = ROUTES.get(method + " " + path);
    if (p == null) {
      throw new IllegalStateException("admin route " + method + " " + path + " has no access rule; add it to"
          + " AccessRules.ROUTES and to the table in docs/SECURITY.md");
    }
    return p;
  }

  /**
   * The permission of the RPC {@code fullMethodName} ({@code package.Service/Method}).
   *
   * @throws IllegalStateException when the RPC has no rule
   */
  public static Permission rpc(String fullMethodName) {
    Permission p = RPCS.get(fullMethodName);
    if (p == null) {
      throw new IllegalStateException("RPC " + fullMethodName + " has no access rule; add it to AccessRules.RPCS and"
          + " to the table in docs/SECURITY.md");
    }
    return p;
  }
}
