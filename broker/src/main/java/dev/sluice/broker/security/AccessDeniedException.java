package dev.sluice.broker.security;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.RequestRejectedException;

/**
 * A request refused by authentication ({@link ErrorCode#UNAUTHENTICATED}: 401, gRPC UNAUTHENTICATED) or by
 * authorization ({@link ErrorCode#PERMISSION_DENIED}: 403, gRPC PERMISSION_DENIED). The message says what
 * to send or which role or table pattern is missing; it never holds a credential.
 */
public final class AccessDeniedException extends RequestRejectedException {

  private final String principal;

  private AccessDeniedException(ErrorCode code, String principal, String message) {
    super(code, message);
    this.principal = principal;
  }

  public static AccessDeniedException unauthenticated(String message) {
    return new AccessDeniedException(ErrorCode.UNAUTHENTICATED, null, message);
  }

  public static AccessDeniedException denied(Principal who, String message) {
    return new AccessDeniedException(ErrorCode.PERMISSION_DENIED, who.name(), message);
  }

  /** The authenticated principal's name, or null when authentication failed. */
  public String principal() {
    return principal;
  }
}
