package dev.sluice.dispatcher.collector;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.SluiceException;
import dev.sluice.dispatcher.BrokerAddress;
import io.vertx.grpc.common.GrpcStatus;

/**
 * The typed error a failed unary call (GetTableSchema, ListTables, GetTopology) completes a
 * {@code SluiceClient} future with: the broker's gRPC status as an {@link ErrorCode}, a transport failure as
 * {@code BROKER_UNREACHABLE}, the message from {@link TroubleText} (the broker's own sentence, or what to check),
 * never a Netty exception or a status number; what the transport threw is its cause, for a stack trace.
 *
 * <pre>{@code
 * client.tableSchema("public.nope", 0).exceptionally(e -> ...);   // RequestRejectedException[UNKNOWN_TABLE]
 * }</pre>
 */
final class CallErrors {

  private CallErrors() {}

  /** The error for {@code call} to {@code broker} having failed with {@code err}. */
  static SluiceException of(String call, Throwable err, BrokerAddress broker) {
    if (err instanceof SluiceException e) {
      return e;
    }
    GrpcStatus status = BrokerCalls.grpcStatus(err);
    String text = call + " failed: " + TroubleText.describe(err, broker);
    // the message is the sentence; the transport's exception stays the cause, for a stack trace only
    return SluiceException.of(codeOf(status), text, err);
  }

  /** What a broker's status means (EventServiceEndpoint's mapping); a transport failure has no status. */
  static ErrorCode codeOf(GrpcStatus status) {
    if (status == null) {
      return ErrorCode.BROKER_UNREACHABLE;
    }
    return switch (status) {
      case UNAUTHENTICATED -> ErrorCode.UNAUTHENTICATED;
      case PERMISSION_DENIED -> ErrorCode.PERMISSION_DENIED;
      case NOT_FOUND -> ErrorCode.UNKNOWN_TABLE;
      case FAILED_PRECONDITION -> ErrorCode.TABLE_DROPPED;
      case OUT_OF_RANGE -> ErrorCode.START_TS_BELOW_GC;
      case INVALID_ARGUMENT -> ErrorCode.INVALID_REQUEST;
      case UNIMPLEMENTED -> ErrorCode.UNSUPPORTED_FEATURE;
      case UNAVAILABLE -> ErrorCode.SCHEMA_UNAVAILABLE;   // "not known yet ... retry shortly", or shutting down
      case DEADLINE_EXCEEDED, CANCELLED, ABORTED, RESOURCE_EXHAUSTED -> ErrorCode.BROKER_UNREACHABLE;
      default -> ErrorCode.INTERNAL;
    };
  }
}
