package dev.sluice.broker.server.admission;

import io.vertx.grpc.common.GrpcStatus;

/**
 * A client's stream refused for a {@link Mistake}: what the stream is answered with (its status and a
 * message a person can act on). Carries no stack trace: it reports the client's input, not a fault here.
 */
public final class GrpcRejection extends RuntimeException {

  private final Mistake mistake;

  public GrpcRejection(Mistake mistake, String message) {
    super(message, null, false, false);
    this.mistake = mistake;
  }

  public Mistake mistake() {
    return mistake;
  }

  public GrpcStatus status() {
    return mistake.status();
  }
}
