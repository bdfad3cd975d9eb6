package dev.sluice.broker.server.admission;

import dev.sluice.broker.control.ConnectionLimits;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * What the gRPC port admits ({@link ConnectionLimits}), shared by the listener instances of one port:
 * <ul>
 *   <li>a socket that sends nothing for {@code prefaceTimeout} is closed by the transport (read idle), the
 *       one that never sends the HTTP/2 preface included; every HTTP/2 connection is pinged each third of
 *       that, so a peer that answers is never closed by it, and one that stopped answering is;</li>
 *   <li>at most {@code maxConnections} HTTP/2 connections: one more is closed at once (GOAWAY) and counted;</li>
 *   <li>a connection that opens no stream within {@code prefaceTimeout}, or whose streams have all ended and
 *       that opens no new one within {@code idleTimeout}, is closed (GOAWAY) and counted.</li>
 * </ul>
 * The Hello deadline of Connect streams is kept by the stream itself. Meters:
 * {@code sluice.grpc.connections.open}, {@code .limit}, {@code .refused}, {@code .closed{reason}}.
 *
 * <pre>{@code
 * GrpcConnections admission = new GrpcConnections(limits, meters, System::nanoTime);
 * // in each listener verticle:
 * GrpcConnections.Listener l = admission.listener(vertx);
 * vertx.createHttpServer(admission.configure(options)).connectionHandler(l::onConnection)
 *     .requestHandler(l.counting(grpcHandler)).listen();
 * }</pre>
 */
public final class GrpcConnections {

  private final ConnectionLimits limits;
  private final LongSupplier nanoClock;
  private final AtomicInteger open = new AtomicInteger();
  private final Counter refused;
  private final Counter closedNoStream;
  private final Counter closedIdle;
  private final RateLimitedLog warnings;

  public GrpcConnections(ConnectionLimits limits, MeterRegistry meters, RateLimitedLog warnings, LongSupplier nanoClock) {
    this.limits = limits;
    this.nanoClock = nanoClock;
    this.warnings = warnings;
    Gauge.builder("sluice.grpc.connections.open", open, AtomicInteger::get)
        .description("HTTP/2 connections open on the gRPC port").register(meters);
    Gauge.builder("sluice.grpc.connections.limit", limits, ConnectionLimits::maxConnections)
        .description("maxConnections: connections beyond it are closed at once").register(meters);
    refused = Counter.builder("sluice.grpc.connections.refused")
        .description("connections closed at once because maxConnections were open").register(meters);
    closedNoStream = Counter.builder("sluice.grpc.connections.closed").tag("reason", "no_stream")
        .description("connections that opened no stream within prefaceTimeout").register(meters);
    closedIdle = Counter.builder("sluice.grpc.connections.closed").tag("reason", "idle")
        .description("connections without a stream for idleTimeout").register(meters);
  }

  /** The transport's part: a socket with nothing to read for {@code prefaceTimeout} is closed. */
  public HttpServerOptions configure(HttpServerOptions options) {
    return options.setReadIdleTimeout((int) limits.prefaceTimeout().toMillis()).setIdleTimeoutUnit(TimeUnit.MILLISECONDS);
  }

  /** The part of one listener instance (its connections live on its event loop). */
  public Listener listener(Vertx vertx) {
    return new Listener(vertx);
  }

  int open() {
    return open.get();
  }

  /** One listener instance's connections; confined to its event loop. */
  public final class Listener {
    private final Vertx vertx;
    private final Map<HttpConnection, Tracked> connections = new IdentityHashMap<>();
    private final long pingEveryNanos = limits.prefaceTimeout().toNanos() / 3;
    private long timer = -1;

    private Listener(Vertx vertx) {
      this.vertx = vertx;
    }

    /** The HTTP server's connection handler: admits or closes {@code conn}. */
    public void onConnection(HttpConnection conn) {
      if (open.incrementAndGet() > limits.maxConnections()) {
        open.decrementAndGet();
        refused.increment();
        warnings.warn("connection_limit", Map.of("remote", String.valueOf(conn.remoteAddress()),
            "maxConnections", limits.maxConnections()), "gRPC connection refused: " + limits.maxConnections()
            + " are open (maxConnections); closed at once");
        conn.close();
        return;
      }
      long now = nanoClock.getAsLong();
      Tracked t = new Tracked(now);
      connections.put(conn, t);
      conn.closeHandler(v -> {
        if (connections.remove(conn) != null) {
          open.decrementAndGet();
        }
      });
      if (timer < 0) {
        long period = Math.max(50, TimeUnit.NANOSECONDS.toMillis(pingEveryNanos) / 2);
        timer = vertx.setPeriodic(period, id -> sweep());
      }
    }

    /** Counts the streams of each connection around {@code handler}. */
    public Handler<HttpServerRequest> counting(Handler<HttpServerRequest> handler) {
      return req -> {
        Tracked t = connections.get(req.connection());
        if (t != null) {
          t.streams++;
          t.everHadStream = true;
          req.response().closeHandler(v -> {
            if (--t.streams == 0) {
              t.idleSinceNanos = nanoClock.getAsLong();
            }
          });
        }
        handler.handle(req);
      };
    }

    /** Pings what is due, closes what has been without a stream too long. */
    private void sweep() {
      long now = nanoClock.getAsLong();
      for (Map.Entry<HttpConnection, Tracked> e : new java.util.ArrayList<>(connections.entrySet())) {
        HttpConnection conn = e.getKey();
        Tracked t = e.getValue();
        if (t.streams == 0) {
          long idle = now - t.idleSinceNanos;
          if (!t.everHadStream && idle >= limits.prefaceTimeout().toNanos()) {
            closedNoStream.increment();
            conn.close();
            continue;
          }
          if (t.everHadStream && idle >= limits.idleTimeout().toNanos()) {
            closedIdle.increment();
            conn.close();
            continue;
          }
        }
        if (now - t.lastPingNanos >= pingEveryNanos) {
          t.lastPingNanos = now;
          conn.ping(Buffer.buffer(new byte[8]));   // its ack is a read: a live peer is never read-idle
        }
      }
      if (connections.isEmpty() && timer >= 0) {
        vertx.cancelTimer(timer);
        timer = -1;
      }
    }

    /** Stops the sweep (the listener stops). */
    public void stop() {
      if (timer >= 0) {
        vertx.cancelTimer(timer);
        timer = -1;
      }
    }
  }

  /** What is known of one connection. */
  private static final class Tracked {
    int streams;
    boolean everHadStream;
    long idleSinceNanos;
    long lastPingNanos;

    Tracked(long now) {
      idleSinceNanos = now;
      lastPingNanos = now;
    }
  }
}
