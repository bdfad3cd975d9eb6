package dev.sluice.it;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.NetSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A fault-injecting TCP proxy between collectors and a broker (Vert.x net): each accepted connection
 * is paired with a new connection to the target, and bytes are forwarded according to the current
 * {@link Fault}, which can be switched at any time. {@link #cutAll()} closes every open pair at once.
 * It counts connections and bytes so a test can tell that a fault took effect.
 *
 * <p>Concurrency: both sockets of a pair live on the event loop that accepted the connection, so a
 * pair's state needs no lock; the fault is a volatile read per buffer.
 *
 * <pre>{@code
 * try (FaultProxy proxy = FaultProxy.start(broker.grpcPort())) {
 *   client = SluiceClient.connect(ClientConfig.of(proxy.address()));
 *   proxy.cutAll();                          // every stream breaks now
 *   proxy.set(FaultProxy.Fault.delay(50));   // 50 ms each way from now on
 * }
 * }</pre>
 */
public final class FaultProxy implements AutoCloseable {

  /** What the proxy does with the bytes it reads, in both directions. */
  public enum Kind {
    /** Forward as read, with back-pressure. */
    PASS,
    /** Forward each buffer {@code amount} ms after it was read. */
    DELAY,
    /**
     * Accept and read, never forward (the peer sees a silent connection). A connection that lost bytes
     * to the black hole stays silent after a switch back, as a dead path would: TCP never skips bytes.
     */
    BLACK_HOLE,
    /** Forward {@code amount} more bytes per connection (both directions together), then close it. */
    CUT_AFTER_BYTES
  }

  /** The proxy's current behaviour. */
  public record Fault(Kind kind, long amount) {

    public Fault {
      if (amount < 0) {
        throw new IllegalArgumentException("amount must be >= 0, got " + amount);
      }
    }

    public static Fault pass() {
      return new Fault(Kind.PASS, 0);
    }

    public static Fault delay(long ms) {
      return new Fault(Kind.DELAY, ms);
    }

    public static Fault blackHole() {
      return new Fault(Kind.BLACK_HOLE, 0);
    }

    public static Fault cutAfterBytes(long bytes) {
      return new Fault(Kind.CUT_AFTER_BYTES, bytes);
    }
  }

  private final Vertx vertx;
  private final NetServer server;
  private final NetClient client;
  private final String targetHost;
  private final int targetPort;
  private final Set<Pair> pairs = ConcurrentHashMap.newKeySet();
  private final AtomicLong connections = new AtomicLong();
  private final AtomicLong cuts = new AtomicLong();
  private final AtomicLong bytesForwarded = new AtomicLong();
  private final AtomicLong bytesDropped = new AtomicLong();
  private final AtomicLong bytesHeld = new AtomicLong();
  private volatile Fault fault = Fault.pass();
  /** Connections from these client ports get the black hole, whatever the fault (a partition of one peer). */
  private volatile Set<Integer> silencedSources = Set.of();
  private volatile long faultGeneration;

  private FaultProxy(String targetHost, int targetPort) {
    this.vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    this.client = vertx.createNetClient(new NetClientOptions().setConnectTimeout(5000).setTcpNoDelay(true));
    this.server = vertx.createNetServer(new NetServerOptions().setHost("127.0.0.1").setPort(0).setTcpNoDelay(true));
  }

  /** A proxy on a free loopback port in front of {@code 127.0.0.1:targetPort}, passing bytes. */
  public static FaultProxy start(int targetPort) {
    return start(targetPort, 0);
  }

  /** A proxy on {@code listenPort} (0 = free) in front of {@code 127.0.0.1:targetPort}. */
  public static FaultProxy start(int targetPort, int listenPort) {
    FaultProxy p = new FaultProxy("127.0.0.1", targetPort);
    p.server.connectHandler(p::onConnect);
    try {
      p.server.listen(listenPort, "127.0.0.1").await(30, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      p.close();
      throw new IllegalStateException("the proxy could not listen within 30 s", e);
    }
    return p;
  }

  /** "127.0.0.1:port" to give to clients. */
  public String address() {
    return "127.0.0.1:" + server.actualPort();
  }

  public int port() {
    return server.actualPort();
  }

  /** Switches the behaviour for every open and future connection; byte budgets count from now. */
  public void set(Fault f) {
    faultGeneration++;
    fault = f;
  }

  public Fault fault() {
    return fault;
  }

  /**
   * Silences every connection whose client port is in {@code ports}, open or future (the peer's
   * outgoing connections come from those ports, so this cuts one peer off while others pass); an
   * empty set ends it for new connections (a silenced one stays silent, as a dead path would).
   */
  public void silenceFrom(Set<Integer> ports) {
    silencedSources = Set.copyOf(ports);
    for (Pair p : pairs) {
      if (ports.contains(p.in.remoteAddress().port())) {
        vertx.runOnContext(v -> p.silenced = true);
      }
    }
  }

  /** Closes every open connection whose client port is in {@code ports}; returns how many. */
  public int cutFrom(Set<Integer> ports) {
    int n = 0;
    for (Pair p : pairs) {
      if (ports.contains(p.in.remoteAddress().port())) {
        vertx.runOnContext(v -> p.close());
        n++;
      }
    }
    cuts.addAndGet(n);
    return n;
  }

  /** Silences every open connection now, even one that sends nothing meanwhile (a cut-off path). */
  public void silenceOpen() {
    for (Pair p : pairs) {
      vertx.runOnContext(v -> p.silenced = true);
    }
  }

  /** Closes every open pair now (both sides); returns how many. Later connections are served as usual. */
  public int cutAll() {
    int n = 0;
    for (Pair p : pairs) {
      vertx.runOnContext(v -> p.close());
      n++;
    }
    cuts.addAndGet(n);
    return n;
  }

  /** Connections accepted since start. */
  public long connections() {
    return connections.get();
  }

  /** Pairs open now. */
  public int openConnections() {
    return pairs.size();
  }

  /** Pairs closed by {@link #cutAll()} or a byte budget. */
  public long cuts() {
    return cuts.get();
  }

  public long bytesForwarded() {
    return bytesForwarded.get();
  }

  /** Bytes read and held back right now (delay). */
  public long bytesHeld() {
    return bytesHeld.get();
  }

  /** Bytes read and never forwarded (black hole, beyond a budget). */
  public long bytesDropped() {
    return bytesDropped.get();
  }

  private void onConnect(NetSocket in) {
    connections.incrementAndGet();
    in.pause();
    client.connect(targetPort, targetHost).onSuccess(out -> {
      Pair p = new Pair(in, out);
      pairs.add(p);
      p.silenced = silencedSources.contains(in.remoteAddress().port());
      p.wire();
      in.resume();
    }).onFailure(e -> in.close());
  }

  /** Bytes held back until {@code atNanos}. */
  private record Delayed(Buffer buffer, long atNanos) {}

  /** One proxied connection: the accepted socket and the socket to the target. */
  private final class Pair {
    private final NetSocket in;
    private final NetSocket out;
    private long budgetGeneration = -1;
    private long budgetUsed;
    private boolean closed;
    private boolean silenced;   // it lost bytes to a black hole (or its peer is cut off): it never forwards again
    // bytes held back per direction (DELAY); while any are pending, later bytes queue behind them,
    // whatever the fault is by then, so a switch of fault never reorders a stream
    private final java.util.ArrayDeque<Delayed> upDelayed = new java.util.ArrayDeque<>();
    private final java.util.ArrayDeque<Delayed> downDelayed = new java.util.ArrayDeque<>();

    Pair(NetSocket in, NetSocket out) {
      this.in = in;
      this.out = out;
    }

    void wire() {
      in.handler(b -> forward(b, in, out));
      out.handler(b -> forward(b, out, in));
      in.closeHandler(v -> close());
      out.closeHandler(v -> close());
      in.exceptionHandler(e -> close());
      out.exceptionHandler(e -> close());
    }

    private void forward(Buffer b, NetSocket from, NetSocket to) {
      if (closed) {
        return;
      }
      if (silenced) {
        bytesDropped.addAndGet(b.length());
        return;
      }
      Fault f = fault;
      switch (f.kind()) {
        case PASS -> write(b, from, to);
        case DELAY -> later(b, to, from == in, System.nanoTime() + f.amount() * 1_000_000);
        case BLACK_HOLE -> {
          silenced = true;
          bytesDropped.addAndGet(b.length());
        }
        case CUT_AFTER_BYTES -> {
          if (budgetGeneration != faultGeneration) {
            budgetGeneration = faultGeneration;
            budgetUsed = 0;
          }
          long left = f.amount() - budgetUsed;
          if (left >= b.length()) {
            budgetUsed += b.length();
            write(b, from, to);
          } else {
            if (left > 0) {
              write(b.getBuffer(0, (int) left), from, to);
            }
            bytesDropped.addAndGet(b.length() - Math.max(0, left));
            cuts.incrementAndGet();
            close();
          }
        }
      }
    }

    /** Writes {@code b} at {@code atNanos}, and never before the bytes already delayed in this direction. */
    private void later(Buffer b, NetSocket to, boolean up, long atNanos) {
      java.util.ArrayDeque<Delayed> q = up ? upDelayed : downDelayed;
      long at = q.isEmpty() ? atNanos : Math.max(atNanos, q.peekLast().atNanos());
      q.add(new Delayed(b, at));
      bytesHeld.addAndGet(b.length());
      if (q.size() == 1) {
        drainLater(q, to);
      }
    }

    private void drainLater(java.util.ArrayDeque<Delayed> q, NetSocket to) {
      long waitNanos = q.peek().atNanos() - System.nanoTime();
      vertx.setTimer(Math.max(1, (waitNanos + 999_999) / 1_000_000), t -> {
        if (closed) {
          q.forEach(d -> bytesHeld.addAndGet(-d.buffer().length()));
          q.clear();
          return;
        }
        long now = System.nanoTime();
        while (!q.isEmpty() && q.peek().atNanos() <= now) {
          Buffer next = q.poll().buffer();
          bytesHeld.addAndGet(-next.length());
          bytesForwarded.addAndGet(next.length());   // counted before the peer can see them
          to.write(next);
        }
        if (!q.isEmpty()) {
          drainLater(q, to);
        }
      });
    }

    private void write(Buffer b, NetSocket from, NetSocket to) {
      boolean up = from == in;
      if (!(up ? upDelayed : downDelayed).isEmpty()) {
        later(b, to, up, 0);   // delayed bytes of this direction are still pending: keep the order
        return;
      }
      bytesForwarded.addAndGet(b.length());   // counted before the peer can see them
      to.write(b);
      if (to.writeQueueFull()) {
        from.pause();
        to.drainHandler(v -> from.resume());
      }
    }

    void close() {
      if (closed) {
        return;
      }
      closed = true;
      pairs.remove(this);
      in.close();
      out.close();
    }
  }

  @Override
  public void close() {
    try {
      server.close().await(10, TimeUnit.SECONDS);
      vertx.close().await(30, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("the proxy did not close within its timeout", e);
    }
  }
}
