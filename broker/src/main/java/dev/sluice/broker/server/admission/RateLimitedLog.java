package dev.sluice.broker.server.admission;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * WARNs about what clients do wrong, at most one per kind per interval: the one logged carries the ids
 * of its event and how many of that kind were not logged since the last one, so a client that repeats a
 * mistake 20,000 times costs a few lines, not 20,000 (the meters count them all). Never a stack trace: a
 * client's mistake is not the broker's failure. Thread-safe.
 *
 * <pre>{@code
 * RateLimitedLog warnings = new RateLimitedLog(log, Duration.ofSeconds(10), System::nanoTime);
 * warnings.warn("compressed_without_encoding", Map.of("remote", "10.0.0.7:5123", "stream", 5), "refused: ...");
 * }</pre>
 */
public final class RateLimitedLog {

  private final Logger log;
  private final long intervalNanos;
  private final LongSupplier nanoClock;
  private final Map<String, Window> windows = new ConcurrentHashMap<>();

  /** When the next WARN of a kind may be logged, and how many were held back meanwhile. */
  private static final class Window {
    final AtomicLong nextAtNanos;
    final AtomicLong suppressed = new AtomicLong();

    Window(long now) {
      nextAtNanos = new AtomicLong(now);
    }
  }

  public RateLimitedLog(Logger log, Duration interval, LongSupplier nanoClock) {
    this.log = log;
    this.intervalNanos = interval.toNanos();
    this.nanoClock = nanoClock;
  }

  /** Logs {@code message} with {@code ids} as key-values unless a WARN of {@code kind} was logged within the interval. */
  public void warn(String kind, Map<String, ?> ids, String message) {
    long now = nanoClock.getAsLong();
    Window w = windows.computeIfAbsent(kind, k -> new Window(now));
    long next = w.nextAtNanos.get();
    if (now - next < 0 || !w.nextAtNanos.compareAndSet(next, now + intervalNanos)) {
      w.suppressed.incrementAndGet();
      return;
    }
    long held = w.suppressed.getAndSet(0);
    LoggingEventBuilder b = log.atWarn().addKeyValue("kind", kind);
    ids.forEach(b::addKeyValue);
    if (held > 0) {
      b = b.addKeyValue("notLoggedSinceLast", held);
    }
    b.log(message);
  }
}
