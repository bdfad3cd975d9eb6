package dev.sluice.broker.control;

import java.time.Duration;

/**
 * What the gRPC port admits, so idle or hostile clients cannot hold the broker's sockets and streams:
 * a cap on HTTP/2 connections, deadlines for a connection's first bytes and first stream, for a Connect
 * stream's Hello, and for a connection left without streams. Static (set at start).
 *
 * <pre>{@code
 * ConnectionLimits limits = ConnectionLimits.defaults().withMaxConnections(20_000);
 * EventServiceConfig config = EventServiceConfig.defaults().withConnections(limits);
 * }</pre>
 *
 * @param maxConnections HTTP/2 connections open at once on the gRPC port; a connection beyond it is closed at
 *                       once (GOAWAY) and counted (default {@value #DEFAULT_MAX_CONNECTIONS}; keep it well
 *                       below the process's file-descriptor limit, {@code ulimit -n})
 * @param prefaceTimeout a socket that sends nothing for this long is closed: one that never sends the HTTP/2
 *                       preface, and a connection that opens no stream within it (default 10 s). Live
 *                       connections are pinged every third of it, so a responsive peer is never closed by it
 * @param helloTimeout   a Connect stream whose Hello has not arrived within this gets StreamError MISSING_HELLO
 *                       and is closed (default 10 s)
 * @param idleTimeout    a connection whose streams have all ended is closed (GOAWAY) after this long without a
 *                       new one (default 5 min)
 */
public record ConnectionLimits(int maxConnections, Duration prefaceTimeout, Duration helloTimeout,
    Duration idleTimeout) {

  public static final int DEFAULT_MAX_CONNECTIONS = 4096;
  public static final Duration DEFAULT_PREFACE_TIMEOUT = Duration.ofSeconds(10);
  public static final Duration DEFAULT_HELLO_TIMEOUT = Duration.ofSeconds(10);
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(5);
  /** Pings must fit at least once in the preface timeout, with room; and timers tick in milliseconds. */
  static final Duration MIN_TIMEOUT = Duration.ofMillis(300);

  public ConnectionLimits {
    if (maxConnections < 1) {
      throw new IllegalArgumentException("maxConnections must be >= 1, got " + maxConnections);
    }
    atLeast("prefaceTimeout", prefaceTimeout);
    atLeast("helloTimeout", helloTimeout);
    atLeast("idleTimeout", idleTimeout);
    if (idleTimeout.compareTo(prefaceTimeout) < 0) {
      throw new IllegalArgumentException("idleTimeout (" + idleTimeout + ") must be >= prefaceTimeout ("
          + prefaceTimeout + ")");
    }
  }

  public static ConnectionLimits defaults() {
    return new ConnectionLimits(DEFAULT_MAX_CONNECTIONS, DEFAULT_PREFACE_TIMEOUT, DEFAULT_HELLO_TIMEOUT,
        DEFAULT_IDLE_TIMEOUT);
  }

  public ConnectionLimits withMaxConnections(int n) {
    return new ConnectionLimits(n, prefaceTimeout, helloTimeout, idleTimeout);
  }

  public ConnectionLimits withTimeouts(Duration preface, Duration hello, Duration idle) {
    return new ConnectionLimits(maxConnections, preface, hello, idle);
  }

  private static void atLeast(String key, Duration d) {
    if (d == null || d.compareTo(MIN_TIMEOUT) < 0) {
      throw new IllegalArgumentException(key + " must be at least " + MIN_TIMEOUT.toMillis() + " ms, got " + d);
    }
  }
}
