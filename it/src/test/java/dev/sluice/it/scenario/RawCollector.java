package dev.sluice.it.scenario;

import dev.sluice.api.ProtocolInfo;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.CollectorMessage;
import dev.sluice.api.v1.EventServiceGrpc;
import dev.sluice.api.v1.Hello;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A misbehaving collector for scenario 9: the stock grpc-java client with a raw-bytes marshaller, so
 * it can send anything on the Connect stream (garbage, messages out of protocol order), and with
 * explicit flow control, so it can also be a client that never reads. Not the dispatcher library: a
 * real client would never do any of this.
 *
 * <pre>{@code
 * try (RawCollector bad = RawCollector.connect(port, true)) {
 *   bad.sendRaw(new byte[] {1, 2, 3});
 *   Status s = bad.closed(Duration.ofSeconds(10));
 * }
 * }</pre>
 */
final class RawCollector implements AutoCloseable {

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

  private RawCollector(int port, boolean reads) {
    channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().flowControlWindow(64 * 1024)
        .maxInboundMessageSize(64 << 20).build();
    call = channel.newCall(CONNECT, CallOptions.DEFAULT);
    call.start(new ClientCall.Listener<>() {
      @Override
      public void onMessage(byte[] message) {
        try {
          received.add(BrokerMessage.parseFrom(message));
        } catch (IOException e) {
          closed.completeExceptionally(e);
        }
        call.request(1);
      }

      @Override
      public void onClose(Status status, Metadata trailers) {
        closed.complete(status);
      }
    }, new Metadata());
    if (reads) {
      call.request(1);
    }
  }

  /** A collector that reads what the broker sends ({@code reads}) or never asks for a message. */
  static RawCollector connect(int port, boolean reads) {
    return new RawCollector(port, reads);
  }

  void sendRaw(byte[] bytes) {
    call.sendMessage(bytes);
  }

  void send(CollectorMessage m) {
    sendRaw(m.toByteArray());
  }

  void hello(String id) {
    send(CollectorMessage.newBuilder().setHello(Hello.newBuilder().setCollectorId(id)
        .setProtocolVersion(ProtocolInfo.VERSION).addAllOptionalFeatures(ProtocolInfo.BROKER_FEATURES)).build());
  }

  /** The next received message matching {@code p}, or an AssertionError after {@code timeout}. */
  BrokerMessage next(Predicate<BrokerMessage> p, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      BrokerMessage m = received.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      if (m == null) {
        throw new AssertionError("no matching message within " + timeout + "; closed: " + closed.getNow(null));
      }
      if (p.test(m)) {
        return m;
      }
    }
  }

  /** The stream's final status, waiting up to {@code timeout}; null when still open. */
  Status closed(Duration timeout) {
    try {
      return closed.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      return null;
    } catch (Exception e) {
      return Status.fromThrowable(e);
    }
  }

  @Override
  public void close() {
    call.cancel("test done", null);
    channel.shutdownNow();
  }
}
