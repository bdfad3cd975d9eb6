package dev.sluice.dispatcher.collector;

import dev.sluice.api.v1.EventServiceGrpcClient;
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

/** Unary EventService calls (GetTopology, GetTableSchema, ListTables) against one broker, with a deadline. */
final class BrokerCalls {

  private static final Logger LOG = LoggerFactory.getLogger(BrokerCalls.class);

  private BrokerCalls() {}

  static <T> Future<T> call(GrpcClient grpc, BrokerAddress address, Duration timeout,
      Function<EventServiceGrpcClient, Future<T>> call) {
    return call.apply(EventServiceGrpcClient.create(grpc, SocketAddress.inetSocketAddress(address.port(), address.host())))
        .timeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The gRPC status of a failed call, or null for a transport failure. */
  static GrpcStatus grpcStatus(Throwable err) {
    if (err instanceof InvalidStatusException ise) {
      return ise.actualStatus();
    }
    if (err instanceof GrpcErrorException gee) {
      return gee.status();
    }
    return null;
  }

  /** Addresses of the members a collector may fail over to (every member not marked unreachable). */
  static List<BrokerAddress> serving(Topology topology) {
    List<BrokerAddress> out = new ArrayList<>();
    for (Member m : topology.getMembersList()) {
      if (m.getState() != MemberState.MEMBER_STATE_UNREACHABLE && !m.getGrpcAddress().isEmpty()) {
        try {
          out.add(BrokerAddress.parse(m.getGrpcAddress()));
        } catch (IllegalArgumentException e) {
          LOG.atWarn().addKeyValue("member", m.getNodeId()).log("ignoring member address: {}", e.getMessage());
        }
      }
    }
    return out;
  }
}
