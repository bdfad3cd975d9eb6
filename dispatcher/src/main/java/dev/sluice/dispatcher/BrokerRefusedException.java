package dev.sluice.dispatcher;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.RequestRejectedException;

/**
 * A broker refused the collector's stream for good (a non-retryable StreamError answering Hello, or
 * another protocol version): the client stops and every subscription fails with this error.
 *
 * <pre>{@code
 * if (error instanceof BrokerRefusedException r) log.error("broker {} refused: {}", r.broker(), r.getMessage());
 * }</pre>
 */
public final class BrokerRefusedException extends RequestRejectedException {

  /** The refusing broker, host:port. */
  private final String broker;

  /** The refusal of {@code broker} with its {@code code} and the broker's {@code detail}. */
  public BrokerRefusedException(ErrorCode code, String broker, String detail) {
    super(code.kind() == ErrorCode.Kind.REJECTED ? code : ErrorCode.PROTOCOL_VIOLATION,
        "broker " + broker + " refused the collector stream (" + code + "): " + detail);
    this.broker = broker;
  }

  /** The broker's address ({@code host:port}). */
  public String broker() {
    return broker;
  }
}
