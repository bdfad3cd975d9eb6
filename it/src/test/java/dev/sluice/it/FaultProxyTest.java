package dev.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.vertx.core.Vertx;
import io.vertx.core.net.NetServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The fault proxy's behaviours against a real echo server over real sockets. */
class FaultProxyTest {

  private Vertx vertx;
  private NetServer echo;
  private FaultProxy proxy;

  @BeforeEach
  void startEchoServerAndProxy() throws Exception {
    vertx = Vertx.vertx();
    echo = vertx.createNetServer().connectHandler(s -> s.handler(s::write));
    echo.listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    proxy = FaultProxy.start(echo.actualPort());
  }

  @AfterEach
  void stop() throws Exception {
    proxy.close();
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  private Socket connect() throws IOException {
    Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
    s.setSoTimeout(5000);
    return s;
  }

  private static byte[] read(InputStream in, int n) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[8192];
    while (out.size() < n) {
      int r = in.read(buf, 0, Math.min(buf.length, n - out.size()));
      if (r < 0) {
        break;
      }
      out.write(buf, 0, r);
    }
    return out.toByteArray();
  }

  @Test
  void passForwardsBothWaysAndCountsBytes() throws Exception {
    try (Socket s = connect()) {
      s.getOutputStream().write("hello".getBytes(StandardCharsets.US_ASCII));
      assertThat(new String(read(s.getInputStream(), 5), StandardCharsets.US_ASCII)).isEqualTo("hello");
    }
    assertThat(proxy.connections()).isEqualTo(1);
    assertThat(proxy.bytesForwarded()).isEqualTo(10);
  }

  @Test
  void delayHoldsEachBufferForTheDelayEachWay() throws Exception {
    proxy.set(FaultProxy.Fault.delay(200));
    try (Socket s = connect()) {
      long t0 = System.nanoTime();
      s.getOutputStream().write(1);
      assertThat(read(s.getInputStream(), 1)).containsExactly(1);
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(Duration.ofMillis(400));
    }
  }

  @Test
  void switchingFromDelayToPassKeepsTheByteOrder() throws Exception {
    proxy.set(FaultProxy.Fault.delay(300));
    try (Socket s = connect()) {
      OutputStream out = s.getOutputStream();
      out.write("first,".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      await().atMost(Duration.ofSeconds(5)).until(() -> proxy.bytesHeld() == 6);
      proxy.set(FaultProxy.Fault.pass());   // "first," is still held: "second" must not overtake it
      out.write("second".getBytes(StandardCharsets.US_ASCII));
      assertThat(new String(read(s.getInputStream(), 12), StandardCharsets.US_ASCII)).isEqualTo("first,second");
    }
  }

  @Test
  void blackHoleReadsButNeverForwards() throws Exception {
    proxy.set(FaultProxy.Fault.blackHole());
    try (Socket s = connect()) {
      s.setSoTimeout(500);
      s.getOutputStream().write(new byte[100]);
      InputStream in = s.getInputStream();
      assertThatThrownBy(in::read).as("nothing comes back from a black hole").isInstanceOf(SocketTimeoutException.class);
      await().atMost(Duration.ofSeconds(5)).until(() -> proxy.bytesDropped() == 100);
      proxy.set(FaultProxy.Fault.pass());   // a connection that lost bytes stays silent: TCP never skips bytes
      s.getOutputStream().write(new byte[10]);
      assertThatThrownBy(in::read).isInstanceOf(SocketTimeoutException.class);
    }
    try (Socket fresh = connect()) {   // new connections are served again
      fresh.getOutputStream().write(7);
      assertThat(read(fresh.getInputStream(), 1)).containsExactly(7);
    }
  }

  @Test
  void cutAfterBytesForwardsExactlyTheBudgetThenCloses() throws Exception {
    proxy.set(FaultProxy.Fault.cutAfterBytes(30));
    try (Socket s = connect()) {
      OutputStream out = s.getOutputStream();
      out.write(new byte[10]);   // 10 up + 10 echoed down = 20 of 30
      assertThat(read(s.getInputStream(), 10)).hasSize(10);
      out.write(new byte[20]);   // 10 more up reach the budget: the pair closes mid-buffer
      byte[] rest = read(s.getInputStream(), 100);
      assertThat(rest.length).as("bytes echoed after the budget ran out").isLessThanOrEqualTo(10);
    }
    assertThat(proxy.cuts()).isEqualTo(1);
  }

  @Test
  void cutAllClosesEveryOpenPairAndLaterConnectionsWork() throws Exception {
    try (Socket a = connect(); Socket b = connect()) {
      a.getOutputStream().write(1);
      b.getOutputStream().write(2);
      read(a.getInputStream(), 1);
      read(b.getInputStream(), 1);
      assertThat(proxy.cutAll()).isEqualTo(2);
      assertThat(a.getInputStream().read()).isEqualTo(-1);
      assertThat(b.getInputStream().read()).isEqualTo(-1);
    }
    try (Socket c = connect()) {
      c.getOutputStream().write(3);
      assertThat(read(c.getInputStream(), 1)).containsExactly(3);
    }
  }


}
