package dev.sluice.broker.security;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.stream.Collectors;

/**
 * Authentication and authorization of one node in one place: who the {@link Credentials} stand for
 * ({@link Authenticator}), whether that principal holds a {@link Permission} and may read a table, and
 * an audit line for every refusal. The servers call it through small hooks ({@code GrpcAccess},
 * {@code HttpAccess}).
 *
 * <pre>{@code
 * AccessGuard guard = new AccessGuard(Authenticator.of(config.principals()), AuditLog.system());
 * guard.admit(credentials, Permission.CHANGEFEED_WRITE, "POST /api/v1/changefeeds")
 *     .thenAccept(principal -> ...);                   // or AccessDeniedException
 * }</pre>
 */
public final class AccessGuard {

  private final Authenticator authenticator;
  private final AuditLog audit;

  public AccessGuard(Authenticator authenticator, AuditLog audit) {
    this.authenticator = authenticator;
    this.audit = audit;
  }

  /** Every caller is an admin: no principal configured (loopback, tests). */
  public static AccessGuard open() {
    return new AccessGuard(Authenticator.of(List.of()), AuditLog.system());
  }

  public boolean enabled() {
    return authenticator.enabled();
  }

  public AuditLog audit() {
    return audit;
  }

  public Authenticator authenticator() {
    return authenticator;
  }

  /**
   * The principal behind {@code c} when it holds {@code needed}; {@link Permission#PUBLIC} admits
   * everyone without looking at the credentials. Refusals are audited.
   */
  public CompletionStage<Principal> admit(Credentials c, Permission needed, String action) {
    if (needed == Permission.PUBLIC) {
      return CompletableFuture.completedFuture(Principal.ANONYMOUS);
    }
    return authenticator.authenticate(c).thenApply(p -> {
      check(p, needed, action);
      return p;
    }).whenComplete((p, e) -> {
      Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
      if (cause instanceof AccessDeniedException denied) {
        audit.refused(denied, action, "", c.remote());
      }
    });
  }

  /** Throws {@link AccessDeniedException} unless {@code p} holds {@code needed}. */
  public static void check(Principal p, Permission needed, String action) {
    if (!p.may(needed)) {
      String roles = Arrays.stream(Role.values()).filter(r -> r.grants(needed)).map(Role::configName)
          .collect(Collectors.joining(", "));
      throw AccessDeniedException.denied(p, "principal " + p.name() + " (roles " + p.roles().stream()
          .map(Role::configName).sorted().toList() + ") may not " + action + ": that needs " + needed
          + ", which roles " + roles + " grant");
    }
  }

  /**
   * Throws {@link AccessDeniedException} (audited) unless {@code p} may read {@code qualifiedName}.
   *
   * @param action what was asked, for the message and the audit line ("REGISTER", "GetTableSchema")
   */
  public void checkTable(Principal p, String qualifiedName, String action, String remote) {
    if (!p.mayRead(qualifiedName)) {
      AccessDeniedException e = tableDenied(p, qualifiedName, action);
      audit.refused(e, action, qualifiedName, remote);
      throw e;
    }
  }

  /** The refusal of a table outside {@code p}'s patterns. */
  public static AccessDeniedException tableDenied(Principal p, String qualifiedName, String action) {
    return AccessDeniedException.denied(p, "principal " + p.name() + " may not " + action + " table " + qualifiedName
        + ": its table patterns are " + p.tablesText() + "; ask an admin to add a pattern matching it");
  }
}
