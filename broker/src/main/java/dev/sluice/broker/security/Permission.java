package dev.sluice.broker.security;

/**
 * What a request needs its principal to be allowed. Every admin route and every RPC names exactly one
 * ({@link AccessRules}); a role grants a set of them ({@link Role}).
 */
public enum Permission {
  /** Nobody needs to authenticate: {@code /healthz}, {@code /readyz}. */
  PUBLIC,
  /** Any authenticated principal: {@code GET /}, GetTopology. */
  AUTHENTICATED,
  /** {@code GET /metrics}. */
  METRICS,
  /** Read the node's state: changefeeds, dispatchers, captures, tables (all of them), members, config. */
  STATUS,
  /** Create, update, pause, resume and delete hosted changefeeds. */
  CHANGEFEED_WRITE,
  /** Drain a node (move its work away before it stops). */
  DRAIN,
  /** Change the node's runtime configuration ({@code PATCH /api/v1/config}). */
  CONFIG_WRITE,
  /** Open a Connect stream and REGISTER / RESET / REMOVE dispatchers of the tables the principal may read. */
  STREAM,
  /** GetTableSchema and ListTables of the tables the principal may read. */
  SCHEMA_READ
}
