package dev.sluice.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.CollectorMessage;
import dev.sluice.api.v1.EventServiceGrpc;
import dev.sluice.api.v1.EventServiceGrpcService;
import dev.sluice.api.v1.Hello;
import dev.sluice.api.v1.Member;
import dev.sluice.api.v1.MemberState;
import dev.sluice.api.v1.Topology;
import dev.sluice.api.v1.TopologyRequest;
import dev.sluice.api.v1.Welcome;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.streams.ReadStream;
import io.vertx.core.streams.WriteStream;
import io.vertx.grpc.server.GrpcServer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A Vert.x gRPC server built on the generated Vert.x stub answers a stock grpc-java client over a
 * real socket: the proof that clients in other stacks (and other languages) can speak v1.
 */
class StockGrpcClientInteropTest {

  private Vertx vertx;
  private HttpServer server;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    GrpcServer grpc = GrpcServer.server(vertx);
    grpc.addService(new EventServiceGrpcService() {
      @Override
      public Future<Topology> getTopology(TopologyRequest request) {
        return Future.succeededFuture(Topology.newBuilder()
            .setThisNodeId("node-a")
            .addMembers(Member.newBuilder().setNodeId("node-a").setGrpcAddress("127.0.0.1:8300")
                .setAdminAddress("127.0.0.1:8301").setIncarnation(0xFEEDL).setResolvedTs(42)
                .setState(MemberState.MEMBER_STATE_SERVING))
            .build());
      }

      @Override
      protected void connect(ReadStream<CollectorMessage> in, WriteStream<BrokerMessage> out) {
        in.handler(msg -> out.write(BrokerMessage.newBuilder()
            .setWelcome(Welcome.newBuilder().setBrokerId("node-a").setProtocolVersion(msg.getHello().getProtocolVersion()))
            .build()));
        in.endHandler(v -> out.end());
      }
    });
    server = vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0))
        .requestHandler(grpc).listen().await(10, TimeUnit.SECONDS);
    channel = ManagedChannelBuilder.forAddress("127.0.0.1", server.actualPort()).usePlaintext().build();
  }

  @AfterEach
  void stop() throws Exception {
    if (channel != null) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    if (vertx != null) {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void stockClientReadsTopology() {
    Topology topology = EventServiceGrpc.newBlockingStub(channel)
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .getTopology(TopologyRequest.getDefaultInstance());

    assertThat(topology.getThisNodeId()).isEqualTo("node-a");
    assertThat(topology.getMembersList()).singleElement().satisfies(m -> {
      assertThat(m.getGrpcAddress()).isEqualTo("127.0.0.1:8300");
      assertThat(m.getIncarnation()).isEqualTo(0xFEEDL);
      assertThat(m.getState()).isEqualTo(MemberState.MEMBER_STATE_SERVING);
    });
  }

  @Test
  void stockClientOpensTheBidiStream() throws Exception {
    List<BrokerMessage> received = new CopyOnWriteArrayList<>();
    CompletableFuture<Void> done = new CompletableFuture<>();
    StreamObserver<CollectorMessage> requests = EventServiceGrpc.newStub(channel)
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .connect(new StreamObserver<>() {
          @Override public void onNext(BrokerMessage value) { received.add(value); }
          @Override public void onError(Throwable t) { done.completeExceptionally(t); }
          @Override public void onCompleted() { done.complete(null); }
        });

    requests.onNext(CollectorMessage.newBuilder()
        .setHello(Hello.newBuilder().setCollectorId("c1").setProtocolVersion(ProtocolInfo.VERSION)).build());
    requests.onCompleted();
    done.get(10, TimeUnit.SECONDS);

    assertThat(received).singleElement().satisfies(m -> {
      assertThat(m.hasWelcome()).isTrue();
      assertThat(m.getWelcome().getProtocolVersion()).isEqualTo(ProtocolInfo.VERSION);
    });
  }
}
