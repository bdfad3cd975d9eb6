package dev.sluice.dispatcher.collector;

import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.CollectorMessage;
import dev.sluice.api.v1.EventServiceGrpcClient;
import dev.sluice.api.v1.Hello;
import dev.sluice.dispatcher.BrokerAddress;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientRequest;

/**
 * One Connect stream to one broker: sends Hello first, hands every inbound message to the collector,
 * and reports its end once (broker end, transport error or local close). Control requests are always
 * written (Vert.x queues them); periodic reports are skipped while the write queue is full, since the
 * next period carries fresher numbers. Used on the collector's context only.
 */
final class BrokerStream {

  private final BrokerAddress address;
  private final Handler<BrokerMessage> onMessage;
  private final Handler<Throwable> onEnd;
  private GrpcClientRequest<CollectorMessage, BrokerMessage> request;
  private boolean ended;

  BrokerStream(BrokerAddress address, Handler<BrokerMessage> onMessage, Handler<Throwable> onEnd) {
    this.address = address;
    this.onMessage = onMessage;
    this.onEnd = onEnd;
  }

  BrokerAddress address() {
    return address;
  }

  /**
   * Opens the stream with the {@code authorization} metadata (null: none) and sends {@code hello}; the
   * future completes once the request is written.
   */
  Future<Void> open(GrpcClient client, String authorization, Hello hello) {
    return client.request(SocketAddress.inetSocketAddress(address.port(), address.host()), EventServiceGrpcClient.Connect)
        .compose(req -> {
          BrokerCalls.authorize(req.headers(), authorization);
          if (ended) {
            req.cancel();
            return Future.failedFuture("stream to " + address + " closed while opening");
          }
          request = req;
          req.exceptionHandler(this::end);
          req.response().onSuccess(resp -> {
            resp.handler(msg -> {
              if (!ended) {
                onMessage.handle(msg);
              }
            });
            resp.exceptionHandler(this::end);
            resp.endHandler(v -> end(new StreamEndedException("broker " + address + " ended the stream"
                + (resp.status() != null ? " with status " + TroubleText.statusName(resp.status())
                + (resp.statusMessage() == null || resp.statusMessage().isEmpty() ? "" : ": " + resp.statusMessage())
                : ""))));
          }).onFailure(this::end);
          return req.write(CollectorMessage.newBuilder().setHello(hello).build());
        })
        .onFailure(this::end);
  }

  /** Writes a control request; false when the stream is not open. */
  boolean send(CollectorMessage message) {
    if (request == null || ended) {
      return false;
    }
    request.write(message);
    return true;
  }

  /** Writes a periodic report unless the write queue is full; false when skipped. */
  boolean sendReport(CollectorMessage message) {
    if (request == null || ended || request.writeQueueFull()) {
      return false;
    }
    request.write(message);
    return true;
  }

  /**
   * Closes the stream locally (timeout, StreamError, client close); reports the end with {@code cause}.
   * The connection stays: after a silent path the collector replaces the whole client instead.
   */
  void close(Throwable cause) {
    if (request != null && !ended) {
      request.cancel();
    }
    end(cause);
  }

  boolean isEnded() {
    return ended;
  }

  private void end(Throwable cause) {
    if (ended) {
      return;
    }
    ended = true;
    onEnd.handle(cause);
  }

  /** The stream ended without a transport error. */
  static final class StreamEndedException extends RuntimeException {
    StreamEndedException(String message) {
      super(message, null, false, false);
    }
  }
}
