package dev.sluice.broker.server;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import dev.sluice.api.UnknownFields;
import dev.sluice.broker.server.admission.ClientMistakes;
import dev.sluice.broker.server.admission.GrpcPayloads;
import dev.sluice.broker.server.admission.GrpcRejection;
import dev.sluice.broker.server.admission.Mistake;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.grpc.common.GrpcError;
import io.vertx.grpc.common.GrpcMessage;
import io.vertx.grpc.common.GrpcMessageDecoder;
import io.vertx.grpc.common.GrpcMessageEncoder;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.ServiceMethod;
import io.vertx.grpc.server.GrpcServerRequest;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * One unary call of the event service, decoded here from the raw message rather than by the gRPC layer
 * (which cancels the stream with no status when a message does not parse): exactly one request message,
 * decompressed ({@link GrpcPayloads}) and parsed, else a status naming what was wrong (INVALID_ARGUMENT for
 * bytes that are not the request type, INTERNAL for a message that does not decompress or a call with no
 * or several messages); the answer is computed on a worker (schema reads are I/O). Confined to the call's
 * context.
 *
 * <pre>{@code
 * grpc.callHandler(UnaryCall.method("GetTopology"), req -> new UnaryCall<>(vertx, req, TopologyRequest.parser(),
 *     r -> topology(), statusOf, mistakes, maxBytes).start());
 * }</pre>
 *
 * @param <Q> the request message
 */
final class UnaryCall<Q extends Message> {

  private final Vertx vertx;
  private final GrpcServerRequest<Buffer, Buffer> request;
  private final Parser<Q> parser;
  private final String typeName;
  private final Function<Q, ? extends Message> answer;
  private final Function<Throwable, GrpcStatus> statusOf;
  private final ClientMistakes mistakes;
  private final int maxMessageBytes;
  private boolean received;
  private boolean answered;

  UnaryCall(Vertx vertx, GrpcServerRequest<Buffer, Buffer> request, Parser<Q> parser, String typeName,
      Function<Q, ? extends Message> answer, Function<Throwable, GrpcStatus> statusOf, ClientMistakes mistakes,
      int maxMessageBytes) {
    this.vertx = vertx;
    this.request = request;
    this.parser = parser;
    this.typeName = typeName;
    this.answer = answer;
    this.statusOf = statusOf;
    this.mistakes = mistakes;
    this.maxMessageBytes = maxMessageBytes;
  }

  /** The raw (undecoded) method of that name of {@code service}. */
  static ServiceMethod<Buffer, Buffer> method(io.vertx.grpc.common.ServiceName service, String name) {
    return ServiceMethod.server(service, name, GrpcMessageEncoder.IDENTITY, GrpcMessageDecoder.IDENTITY);
  }

  void start() {
    request.messageHandler(this::onMessage);
    request.endHandler(v -> {
      if (!received && !answered) {
        refuse(new GrpcRejection(Mistake.NOT_ONE_REQUEST_MESSAGE, "the call ended without its " + typeName
            + "; a unary call carries exactly one request message"), true);
      }
    });
    // a GrpcRejection of the frame guard (already counted), or the peer gone: then there is no one to answer
    request.exceptionHandler(e -> {
      if (e instanceof GrpcRejection r) {
        refuse(r, false);
      } else {
        answered = true;
      }
    });
    request.errorHandler((GrpcError e) -> answered = true);   // cancelled by the client
  }

  private void onMessage(GrpcMessage message) {
    if (received) {
      refuse(new GrpcRejection(Mistake.NOT_ONE_REQUEST_MESSAGE, "a second request message on a unary call; send"
          + " exactly one " + typeName), true);
      return;
    }
    received = true;
    Q q;
    try {
      q = parser.parseFrom(GrpcPayloads.bytes(message, maxMessageBytes));
    } catch (GrpcRejection r) {
      refuse(r, true);
      return;
    } catch (InvalidProtocolBufferException e) {
      refuse(new GrpcRejection(Mistake.MALFORMED_MESSAGE, "malformed " + typeName + ": " + e.getMessage()), true);
      return;
    }
    var unknown = UnknownFields.find(q);
    if (unknown.isPresent()) {
      end(GrpcStatus.INVALID_ARGUMENT, "unknown field " + unknown.get() + "; this broker never ignores fields");
      return;
    }
    vertx.executeBlocking(() -> answer.apply(q), false).onComplete(ar -> {
      if (answered) {
        return;
      }
      answered = true;
      if (ar.succeeded()) {
        request.response().end(Buffer.buffer(ar.result().toByteArray()));
      } else {
        request.response().status(statusOf.apply(ar.cause())).statusMessage(String.valueOf(ar.cause().getMessage()))
            .end();
      }
    });
  }

  private void refuse(GrpcRejection r, boolean count) {
    if (count) {
      mistakes.report(r, ids());
    }
    end(r.status(), r.getMessage());
  }

  private void end(GrpcStatus status, String message) {
    if (answered) {
      return;
    }
    answered = true;
    request.response().status(status).statusMessage(message).end();
  }

  private Map<String, Object> ids() {
    Map<String, Object> ids = new LinkedHashMap<>();
    ids.put("remote", String.valueOf(request.connection().remoteAddress()));
    ids.put("method", request.fullMethodName());
    return ids;
  }
}
