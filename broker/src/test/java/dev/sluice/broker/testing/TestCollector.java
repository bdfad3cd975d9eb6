package dev.sluice.broker.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.sluice.api.DispatcherId;
import dev.sluice.api.ProtocolInfo;
import dev.sluice.api.TableSpan;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.CollectorMessage;
import dev.sluice.api.v1.ControlAck;
import dev.sluice.api.v1.CreditReport;
import dev.sluice.api.v1.DispatcherAction;
import dev.sluice.api.v1.DispatcherCredit;
import dev.sluice.api.v1.DispatcherRequest;
import dev.sluice.api.v1.EventServiceGrpc;
import dev.sluice.api.v1.Hello;
import dev.sluice.api.v1.Welcome;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A collector written with the stock grpc-java client (not Sluice's library), speaking raw bytes so
 * tests can also send garbage. Flow control is explicit: in {@code autoRead} mode it asks for every
 * message; otherwise it reads nothing until told, so the broker sees a collector that never reads.
 */
public final class TestCollector implements AutoCloseable {

  private static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try {
        return stream.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  };

  private static final MethodDescriptor<byte[], byte[]> CONNECT = MethodDescriptor.<byte[], byte[]>newBuilder()
      .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
      .setFullMethodName(EventServiceGrpc.getConnectMethod().getFullMethodName())
      .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();

  private final ManagedChannel channel;
  private final ClientCall<byte[], byte[]> call;
  private final LinkedBlockingQueue<BrokerMessage> received = new LinkedBlockingQueue<>();
  private final CompletableFuture<Status> closed = new CompletableFuture<>();
  private final boolean autoRead;

  private TestCollector(int port, boolean autoRead) {
    this(NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext()
        .flowControlWindow(1 << 20).maxInboundMessageSize(64 << 20).build(), new Metadata(), autoRead);
  }

  private TestCollector(ManagedChannel channel, Metadata headers, boolean autoRead) {
    this.autoRead = autoRead;
    this.channel = channel;
    this.call = channel.newCall(CONNECT, CallOptions.DEFAULT);
    call.start(new ClientCall.Listener<>() {
      @Override
      public void onMessage(byte[] message) {
        try {
          received.add(BrokerMessage.parseFrom(message));
        } catch (InvalidProtocolBufferException e) {
          closed.completeExceptionally(e);
        }
        if (TestCollector.this.autoRead) {
          call.request(1);
        }
      }

      @Override
      public void onClose(Status status, Metadata trailers) {
        closed.complete(status);
      }
    }, headers);
    if (autoRead) {
      call.request(1);
    }
  }

  /** A collector that reads everything the broker sends. */
  public static TestCollector connect(int port) {
    return new TestCollector(port, true);
  }

  /**
   * A collector over {@code channel} (TLS, say), opening its stream with {@code headers} (the
   * {@code authorization} metadata, say); it owns the channel and closes it.
   */
  public static TestCollector over(ManagedChannel channel, Metadata headers) {
    return new TestCollector(channel, headers, true);
  }

  /** A collector that never asks for a message: its stream's window fills and stays full. */
  public static TestCollector connectNeverReading(int port) {
    return new TestCollector(port, false);
  }

  public void sendRaw(byte[] bytes) {
    call.sendMessage(bytes);
  }

  public void send(CollectorMessage m) {
    sendRaw(m.toByteArray());
  }

  /** Sends Hello with every broker feature as optional and waits for Welcome. */
  public Welcome hello(String collectorId) {
    send(CollectorMessage.newBuilder().setHello(Hello.newBuilder().setCollectorId(collectorId)
        .setProtocolVersion(ProtocolInfo.VERSION).addAllOptionalFeatures(ProtocolInfo.BROKER_FEATURES)).build());
    return next(m -> m.hasWelcome()).getWelcome();
  }

  /** Sends Hello asking for exactly {@code optionalFeatures} and waits for Welcome. */
  public Welcome hello(String collectorId, java.util.Collection<String> optionalFeatures) {
    send(CollectorMessage.newBuilder().setHello(Hello.newBuilder().setCollectorId(collectorId)
        .setProtocolVersion(ProtocolInfo.VERSION).addAllOptionalFeatures(optionalFeatures)).build());
    return next(m -> m.hasWelcome()).getWelcome();
  }

  public void request(DispatcherRequest r) {
    send(CollectorMessage.newBuilder().setDispatcherRequest(r).build());
  }

  public static DispatcherRequest.Builder register(DispatcherId id, TableSpan span, long startTs) {
    return DispatcherRequest.newBuilder().setDispatcherId(id.toProto()).setChangefeedId("cf-test")
        .setSpan(span.toProto()).setAction(DispatcherAction.DISPATCHER_ACTION_REGISTER).setStartTs(startTs);
  }

  public static DispatcherRequest.Builder reset(DispatcherId id, long epoch, long startTs) {
    return DispatcherRequest.newBuilder().setDispatcherId(id.toProto())
        .setAction(DispatcherAction.DISPATCHER_ACTION_RESET).setEpoch(epoch).setStartTs(startTs);
  }

  public static DispatcherRequest.Builder remove(DispatcherId id, long epoch) {
    return DispatcherRequest.newBuilder().setDispatcherId(id.toProto())
        .setAction(DispatcherAction.DISPATCHER_ACTION_REMOVE).setEpoch(epoch);
  }

  /** Sends the request and returns its ack. */
  public ControlAck ack(DispatcherRequest r) {
    request(r);
    return next(m -> m.hasControlAck() && m.getControlAck().getDispatcherId().equals(r.getDispatcherId())
        && m.getControlAck().getAction() == r.getAction()).getControlAck();
  }

  /** Grants the dispatcher credit for its epoch. */
  public void credit(DispatcherId id, long epoch, long availableBytes, long receivedBytes) {
    send(CollectorMessage.newBuilder().setCreditReport(CreditReport.newBuilder().addDispatchers(
        DispatcherCredit.newBuilder().setDispatcherId(id.toProto()).setEpoch(epoch)
            .setAvailableBytes(availableBytes).setReceivedBytes(receivedBytes))).build());
  }

  /** The next received message matching {@code p} (earlier non-matching ones are skipped), within 10 s. */
  public BrokerMessage next(Predicate<BrokerMessage> p) {
    return next(p, Duration.ofSeconds(10));
  }

  public BrokerMessage next(Predicate<BrokerMessage> p, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      while (true) {
        long left = deadline - System.nanoTime();
        BrokerMessage m = received.poll(Math.max(0, left), TimeUnit.NANOSECONDS);
        if (m == null) {
          throw new AssertionError("no matching message within " + timeout + "; stream closed: "
              + (closed.isDone() ? closed.getNow(null) : "no"));
        }
        if (p.test(m)) {
          return m;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Everything received so far, removed from the queue. */
  public List<BrokerMessage> drain() {
    List<BrokerMessage> out = new ArrayList<>();
    received.drainTo(out);
    return out;
  }

  /** Takes messages (feeding each to {@code sink}) until {@code until} matches one, within the timeout. */
  public void takeUntil(java.util.function.Consumer<BrokerMessage> sink, Predicate<BrokerMessage> until,
      Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      while (true) {
        long left = deadline - System.nanoTime();
        BrokerMessage m = received.poll(Math.max(0, left), TimeUnit.NANOSECONDS);
        if (m == null) {
          throw new AssertionError("condition not met within " + timeout);
        }
        sink.accept(m);
        if (until.test(m)) {
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Lets a never-reading collector read {@code n} more messages. */
  public void read(int n) {
    call.request(n);
  }

  /** The status the stream closed with, waiting up to 10 s. */
  public Status awaitClosed() {
    try {
      return closed.get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("stream did not close", e);
    }
  }

  public boolean isClosed() {
    return closed.isDone();
  }

  public void assertOpen() {
    assertThat(closed).as("stream still open").isNotDone();
  }

  /** Cancels the call (RST_STREAM CANCEL) and keeps the connection. */
  public void cancel() {
    call.cancel("the test cancels", null);
  }

  public void halfClose() {
    call.halfClose();
  }

  @Override
  public void close() {
    call.cancel("test done", null);
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
