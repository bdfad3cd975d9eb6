package dev.sluice.broker.security;

import java.time.Instant;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit trail: one structured line per admin action (a request that changes something, with its
 * outcome) and per refused request (401/403, UNAUTHENTICATED/PERMISSION_DENIED, a REGISTER outside the
 * principal's tables), on its own logger {@value #LOGGER} so that it can be routed to its own file.
 * Keys: {@code at} (ISO-8601 instant), {@code principal} ({@code -} when not authenticated),
 * {@code action} (an HTTP {@code METHOD /path} or an RPC name), {@code target} (changefeed id, table,
 * ...), {@code outcome} ({@code ok}, {@code failed}, {@code refused}), {@code status} (HTTP status,
 * gRPC status or error code), {@code remote} (peer address), {@code reason}. Never a credential.
 *
 * <pre>{@code
 * audit.record("ops", "POST /api/v1/changefeeds", "orders-pg", "ok", "201", "10.0.0.7:51234", "");
 * // INFO sluice.audit - audit at=2026-... principal=ops action="POST /api/v1/changefeeds" target=orders-pg outcome=ok ...
 * }</pre>
 */
public final class AuditLog {

  public static final String LOGGER = "sluice.audit";
  private static final Logger log = LoggerFactory.getLogger(LOGGER);

  private final Supplier<Instant> clock;

  public AuditLog(Supplier<Instant> clock) {
    this.clock = clock;
  }

  public static AuditLog system() {
    return new AuditLog(Instant::now);
  }

  /** Records one line; {@code outcome} {@code refused} lines are logged at WARN, the rest at INFO. */
  public void record(String principal, String action, String target, String outcome, String status, String remote,
      String reason) {
    ("refused".equals(outcome) ? log.atWarn() : log.atInfo()).addKeyValue("at", clock.get().toString())
        .addKeyValue("principal", principal == null ? "-" : principal).addKeyValue("action", action)
        .addKeyValue("target", target == null ? "" : target).addKeyValue("outcome", outcome)
        .addKeyValue("status", status).addKeyValue("remote", remote == null ? "" : remote)
        .addKeyValue("reason", reason == null ? "" : reason).log("audit");
  }

  /** Records a refusal. */
  public void refused(AccessDeniedException e, String action, String target, String remote) {
    record(e.principal(), action, target, "refused", e.code().name(), remote, e.getMessage());
  }
}
