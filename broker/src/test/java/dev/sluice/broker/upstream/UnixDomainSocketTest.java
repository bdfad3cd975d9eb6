package dev.sluice.broker.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link UnixDomainSocket} against a real Unix-domain server socket of the test. */
class UnixDomainSocketTest {

  private Path dir;
  private Path file;
  private ServerSocketChannel server;

  @BeforeEach
  void listen() throws Exception {
    dir = Files.createTempDirectory(Path.of("/tmp"), "uds");   // short: a socket path must fit 107 bytes (java.io.tmpdir is the checkout's target)
    file = dir.resolve(".s.PGSQL.6543");
    server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    server.bind(UnixDomainSocketAddress.of(file));
  }

  @AfterEach
  void close() throws Exception {
    server.close();
    Files.deleteIfExists(file);
    Files.deleteIfExists(dir);
  }

  @Test
  void bytesGoBothWaysAndAvailableSeesArrivedBytesWithoutBlocking() throws Exception {
    try (UnixDomainSocket s = new UnixDomainSocket(file)) {
      s.connect(new InetSocketAddress("localhost", 1), 1000);
      try (SocketChannel peer = server.accept()) {
        s.getOutputStream().write("ping".getBytes());
        ByteBuffer got = ByteBuffer.allocate(4);
        while (got.hasRemaining()) {
          peer.read(got);
        }
        assertThat(new String(got.array())).isEqualTo("ping");

        InputStream in = s.getInputStream();
        assertThat(in.available()).as("nothing sent yet").isZero();
        peer.write(ByteBuffer.wrap("pong!".getBytes()));
        // PgJDBC polls a replication stream with available(): it must see bytes that arrived, without a read
        await().atMost(Duration.ofSeconds(5)).until(() -> in.available() == 5);
        byte[] buf = new byte[16];
        assertThat(in.read(buf, 0, 16)).isEqualTo(5);
        assertThat(new String(buf, 0, 5)).isEqualTo("pong!");
      }
    }
  }

  @Test
  void aDirectoryTakesThePortOfTheAddressAsPostgreSqlNamesItsSocketFile() throws Exception {
    try (UnixDomainSocket s = new UnixDomainSocket(dir)) {
      s.connect(new InetSocketAddress("localhost", 6543), 1000);
      assertThat(s.getRemoteSocketAddress()).isEqualTo(UnixDomainSocketAddress.of(file));
      assertThat(s.isConnected()).isTrue();
    }
    try (UnixDomainSocket s = new UnixDomainSocket(dir)) {
      assertThatThrownBy(() -> s.connect(new InetSocketAddress("localhost", 6544), 1000))
          .isInstanceOf(SocketException.class).hasMessageContaining(dir.resolve(".s.PGSQL.6544").toString());
    }
  }

  @Test
  void aMissingSocketFileIsAnErrorNamingThePathAndWhatToCheck() throws Exception {
    Path missing = dir.resolve("nothing-here");
    try (UnixDomainSocket s = new UnixDomainSocket(missing)) {
      assertThatThrownBy(() -> s.connect(null, 1000))
          .isInstanceOf(SocketException.class)
          .hasMessageContaining("cannot connect to the PostgreSQL socket " + missing)
          .hasMessageContaining("is the server running");
      assertThat(s.isConnected()).isFalse();
    }
  }

  @Test
  void aReadWaitsAtMostSoTimeoutThenThrowsSocketTimeoutException() throws Exception {
    try (UnixDomainSocket s = new UnixDomainSocket(file)) {
      s.connect(null, 1000);
      try (SocketChannel peer = server.accept()) {
        s.setSoTimeout(50);
        assertThat(s.getSoTimeout()).isEqualTo(50);
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> s.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isGreaterThanOrEqualTo(45);
        peer.write(ByteBuffer.wrap(new byte[] {42}));
        assertThat(s.getInputStream().read()).as("the socket is still usable after a timeout").isEqualTo(42);
      }
    }
  }

  @Test
  void theEndOfTheStreamReadsAsMinusOne() throws Exception {
    try (UnixDomainSocket s = new UnixDomainSocket(file)) {
      s.connect(null, 1000);
      server.accept().close();
      assertThat(s.getInputStream().read(new byte[8], 0, 8)).isEqualTo(-1);
      assertThat(s.getInputStream().read()).isEqualTo(-1);
    }
  }

  @Test
  void closeFromAnotherThreadWakesABlockedReader() throws Exception {
    UnixDomainSocket s = new UnixDomainSocket(file);
    s.connect(null, 1000);
    try (SocketChannel peer = server.accept()) {
      CompletableFuture<Integer> read = CompletableFuture.supplyAsync(() -> {
        try {
          return s.getInputStream().read();
        } catch (java.io.IOException e) {
          throw new java.util.concurrent.CompletionException(e);
        }
      });
      await().during(Duration.ofMillis(100)).atMost(Duration.ofSeconds(5)).until(() -> !read.isDone() && peer.isOpen());
      s.close();
      assertThatThrownBy(() -> read.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(SocketException.class);
      assertThat(s.isClosed()).isTrue();
      assertThatThrownBy(s::getInputStream).isInstanceOf(SocketException.class).hasMessageContaining("closed");
    }
  }

  @Test
  void aWriteLargerThanTheSocketBuffersWaitsForThePeerAndLosesNothing() throws Exception {
    byte[] payload = new byte[8 << 20];
    for (int i = 0; i < payload.length; i++) {
      payload[i] = (byte) (i * 31);
    }
    try (UnixDomainSocket s = new UnixDomainSocket(file)) {
      s.connect(null, 1000);
      try (SocketChannel peer = server.accept()) {
        CompletableFuture<byte[]> received = CompletableFuture.supplyAsync(() -> {
          ByteBuffer b = ByteBuffer.allocate(payload.length);
          try {
            while (b.hasRemaining()) {
              peer.read(b);
            }
          } catch (java.io.IOException e) {
            throw new java.util.concurrent.CompletionException(e);
          }
          return b.array();
        });
        s.getOutputStream().write(payload, 0, payload.length);
        assertThat(Arrays.equals(received.get(30, TimeUnit.SECONDS), payload)).isTrue();
      }
    }
  }

  @Test
  void bufferSizesAreTheChannelsAndTcpOptionsAreAcceptedAsMeaningless() throws Exception {
    try (UnixDomainSocket s = new UnixDomainSocket(file)) {
      s.connect(null, 1000);
      s.setReceiveBufferSize(256 * 1024);
      assertThat(s.getReceiveBufferSize()).isGreaterThanOrEqualTo(256 * 1024);
      assertThat(s.getOption(StandardSocketOptions.SO_RCVBUF)).isEqualTo(s.getReceiveBufferSize());
      s.setTcpNoDelay(true);
      s.setKeepAlive(true);
      assertThat(s.getTcpNoDelay()).isTrue();
      assertThatThrownBy(() -> s.bind(new InetSocketAddress(0))).isInstanceOf(SocketException.class);
      assertThatThrownBy(() -> s.setOption(StandardSocketOptions.TCP_NODELAY, true))
          .isInstanceOf(UnsupportedOperationException.class);
      assertThatThrownBy(() -> s.connect(null, 1000)).isInstanceOf(SocketException.class)
          .hasMessageContaining("already connected");
    }
  }

  @Test
  void theFactoryNeedsItsArgument() {
    assertThatThrownBy(() -> new UnixSocketFactory(" ")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("socketFactoryArg=");
    assertThatThrownBy(() -> new UnixSocketFactory(null)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theFactoryConnectsWhenGivenAnAddressAndLeavesConnectingToPgJdbcOtherwise() throws Exception {
    UnixSocketFactory f = new UnixSocketFactory(file.toString());
    try (java.net.Socket unconnected = f.createSocket(); java.net.Socket connected = f.createSocket("ignored", 1)) {
      assertThat(unconnected.isConnected()).isFalse();
      assertThat(connected.isConnected()).isTrue();
    }
  }
}
