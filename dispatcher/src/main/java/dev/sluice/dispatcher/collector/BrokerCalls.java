package dev.sluice.dispatcher.collector;

import dev.sluice.api.v1.EventServiceGrpcClient;
import dev.sluice.api.v1.ListTablesRequest;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.TableList;
import dev.sluice.api.v1.TableSchemaRequest;
import dev.sluice.api.v1.TopologyRequest;
import io.vertx.core.MultiMap;
import io.vertx.grpc.common.ServiceMethod;
import dev.sluice.api.v1.Member;
import dev.sluice.api.v1.MemberState;
import dev.sluice.api.v1.Topology;
import dev.sluice.dispatcher.BrokerAddress;
import io.vertx.core.Future;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.InvalidStatusException;
import io.vertx.grpc.common.GrpcErrorException;
import io.vertx.grpc.common.GrpcStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Unary EventService calls (GetTopology, GetTableSchema, ListTables) against one broker, with a deadline
 * and the client's {@code authorization} metadata.
 */
final class BrokerCalls {

  private static final Logger LOG = LoggerFactory.getLogger(BrokerCalls.class);

  private BrokerCalls() {}

  static <T> Future<T> call(GrpcClient grpc, BrokerAddress address, Duration timeout, String authorization,
      Function<Calls, Future<T>> call) {
    return call.apply(new Calls(grpc, SocketAddress.inetSocketAddress(address.port(), address.host()), authorization))
        .timeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The unary RPCs of one broker, each sent with the {@code authorization} metadata when there is a token. */
  static final class Calls {
    private final GrpcClient grpc;
    private final SocketAddress address;
    private final String authorization;

    Calls(GrpcClient grpc, SocketAddress address, String authorization) {
      this.grpc = grpc;
      this.address = address;
      this.authorization = authorization;
    }

    Future<Topology> getTopology(TopologyRequest r) {
      return unary(EventServiceGrpcClient.GetTopology, r);
    }

    Future<TableInfo> getTableSchema(TableSchemaRequest r) {
      return unary(EventServiceGrpcClient.GetTableSchema, r);
    }

    Future<TableList> listTables(ListTablesRequest r) {
      return unary(EventServiceGrpcClient.ListTables, r);
    }

    private <Q, R> Future<R> unary(ServiceMethod<R, Q> method, Q request) {
      return grpc.request(address, method).compose(req -> {
        authorize(req.headers(), authorization);
        return req.end(request).compose(v -> req.response().compose(resp -> resp.last().recover(e ->
            resp.status() != null && resp.status() != GrpcStatus.OK
                ? Future.failedFuture(new CallFailedException(resp.status(), resp.statusMessage()))
                : Future.failedFuture(e))));
      });
    }
  }

  /** Sets the {@code authorization} metadata (a bearer token) on an outgoing call; nothing without one. */
  static void authorize(MultiMap headers, String authorization) {
    if (authorization != null) {
      headers.set("authorization", authorization);
    }
  }

  /** A call the broker answered with a status other than OK, with the broker's message. */
  static final class CallFailedException extends RuntimeException {
    private final GrpcStatus status;
    private final String detail;

    CallFailedException(GrpcStatus status, String message) {
      // the status by name: GrpcStatus.toString() is its number
      super(TroubleText.statusName(status) + (message == null || message.isEmpty() ? "" : ": " + message), null,
          false, false);
      this.status = status;
      this.detail = message == null ? "" : message;
    }

    GrpcStatus status() {
      return status;
    }

    /** The broker's own sentence, or "". */
    String detail() {
      return detail;
    }
  }

  /** The gRPC status of a failed call, or null for a transport failure. */
  static GrpcStatus grpcStatus(Throwable err) {
    if (err instanceof CallFailedException cfe) {
      return cfe.status();
    }
    if (err instanceof InvalidStatusException ise) {
      return ise.actualStatus();
    }
    if (err instanceof GrpcErrorException gee) {
      return gee.status();
    }
    return null;
  }

  /** The status message of a failed call (the broker's reason), or the error's own text. */
  static String statusMessage(Throwable err) {
    if (err instanceof CallFailedException cfe) {
      return cfe.detail().isEmpty() ? TroubleText.statusName(cfe.status()) : cfe.detail();
    }
    if (err instanceof InvalidStatusException ise) {
      return "answered " + TroubleText.statusName(ise.actualStatus());
    }
    return String.valueOf(err.getMessage());
  }

  /** The resolved ts of the answering member (its own entry), or the highest one listed when it has none. */
  static long resolvedTsOf(Topology topology) {
    long highest = 0;
    for (Member m : topology.getMembersList()) {
      if (m.getNodeId().equals(topology.getThisNodeId())) {
        return m.getResolvedTs();
      }
      highest = Math.max(highest, m.getResolvedTs());
    }
    return highest;
  }

}
