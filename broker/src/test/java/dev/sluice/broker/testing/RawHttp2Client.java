package dev.sluice.broker.testing;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * An HTTP/2 client that sends gRPC frames exactly as built by the test, the prefix byte included, so a
 * test can send what a stock gRPC client never would (a message flagged compressed without a
 * {@code grpc-encoding}, bytes that are no protobuf) against a real broker. Netty's HTTP/2 codec from the
 * classpath; one TCP connection, any number of streams on it.
 *
 * <pre>{@code
 * try (RawHttp2Client h2 = RawHttp2Client.connect(port)) {
 *   RawHttp2Client.Stream s = h2.open("/sluice.v1.EventService/GetTopology", Map.of());
 *   s.send(RawHttp2Client.frame(true, bytes), true);   // flagged compressed
 *   Http2Headers trailers = s.trailers(Duration.ofSeconds(10));
 * }
 * }</pre>
 */
public final class RawHttp2Client implements AutoCloseable {

  /** One I/O thread for every client of the test JVM (daemon: it ends with the JVM). */
  private static final EventLoopGroup GROUP = new MultiThreadIoEventLoopGroup(1,
      new io.netty.util.concurrent.DefaultThreadFactory("raw-h2", true), NioIoHandler.newFactory());

  private final Channel channel;
  private final int port;

  private RawHttp2Client(Channel channel, int port) {
    this.channel = channel;
    this.port = port;
  }

  /** Connects and sends the HTTP/2 preface and SETTINGS (no stream yet). */
  public static RawHttp2Client connect(int port) {
    Channel ch = new Bootstrap().group(GROUP).channel(NioSocketChannel.class).handler(new ChannelInitializer<>() {
      @Override
      protected void initChannel(Channel c) {
        c.pipeline().addLast(Http2FrameCodecBuilder.forClient().build(),
            new Http2MultiplexHandler(new ChannelInboundHandlerAdapter()));
      }
    }).connect("127.0.0.1", port).syncUninterruptibly().channel();
    return new RawHttp2Client(ch, port);
  }

  /** A gRPC length-prefixed message: flag byte, 4-byte big-endian length, payload. */
  public static byte[] frame(boolean compressedFlag, byte[] payload) {
    ByteBuffer b = ByteBuffer.allocate(5 + payload.length);
    b.put((byte) (compressedFlag ? 1 : 0)).putInt(payload.length).put(payload);
    return b.array();
  }

  /** Opens a stream to {@code path} with the gRPC request headers plus {@code extra}. */
  public Stream open(String path, Map<String, String> extra) {
    Stream s = new Stream();
    Http2StreamChannel child = new Http2StreamChannelBootstrap(channel).handler(s).open().syncUninterruptibly().getNow();
    s.channel = child;
    Http2Headers h = new DefaultHttp2Headers().method("POST").scheme("http").path(path).authority("127.0.0.1:" + port)
        .set("content-type", "application/grpc").set("te", "trailers");
    extra.forEach(h::set);
    child.writeAndFlush(new DefaultHttp2HeadersFrame(h, false)).syncUninterruptibly();
    return s;
  }

  public boolean isActive() {
    return channel.isActive();
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
  }

  /** One HTTP/2 stream: what the test sends, and what came back (headers, gRPC messages, trailers, reset). */
  public static final class Stream extends ChannelInboundHandlerAdapter {
    private Http2StreamChannel channel;
    private final List<Http2Headers> headers = new ArrayList<>();
    private final ByteArrayOutputStream data = new ByteArrayOutputStream();
    private final CompletableFuture<Http2Headers> trailers = new CompletableFuture<>();
    private final CompletableFuture<Long> reset = new CompletableFuture<>();

    /** Sends data; a stream the server already answered and closed takes no more (that is not an error here). */
    public void send(byte[] bytes, boolean endStream) {
      channel.writeAndFlush(new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(bytes), endStream)).awaitUninterruptibly();
    }

    /** The trailers (or the headers of a trailers-only answer), within the timeout. */
    public Http2Headers trailers(java.time.Duration timeout) throws Exception {
      try {
        return trailers.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        throw new AssertionError("no trailers within " + timeout + "; reset: " + reset.getNow(null) + ", headers: "
            + headers + ", data bytes: " + data.size());
      }
    }

    /** The RST_STREAM error code, if the server reset the stream. */
    public Long resetCode() {
      return reset.getNow(null);
    }

    /** The gRPC messages received so far. */
    public synchronized List<byte[]> messages() {
      List<byte[]> out = new ArrayList<>();
      ByteBuffer b = ByteBuffer.wrap(data.toByteArray());
      while (b.remaining() >= 5) {
        b.get();
        int len = b.getInt();
        if (b.remaining() < len) {
          break;
        }
        byte[] m = new byte[len];
        b.get(m);
        out.add(m);
      }
      return out;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof Http2HeadersFrame h) {
        if (h.isEndStream()) {
          trailers.complete(h.headers());
        } else {
          headers.add(h.headers());
        }
      } else if (msg instanceof Http2DataFrame d) {
        ByteBuf content = d.content();
        byte[] bytes = new byte[content.readableBytes()];
        content.readBytes(bytes);
        synchronized (this) {
          data.writeBytes(bytes);
        }
        d.release();
      } else if (msg instanceof Http2ResetFrame r) {
        reset.complete(r.errorCode());
        trailers.completeExceptionally(new AssertionError("stream reset with code " + r.errorCode()
            + " and no trailers"));
      }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt instanceof Http2ResetFrame r) {
        reset.complete(r.errorCode());
        trailers.completeExceptionally(new AssertionError("stream reset with code " + r.errorCode()
            + " and no trailers"));
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      trailers.completeExceptionally(new AssertionError("the stream closed without trailers"));
    }
  }
}
