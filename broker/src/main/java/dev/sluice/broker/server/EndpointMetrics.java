package dev.sluice.broker.server;

import dev.sluice.api.error.ErrorCode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.AtomicInteger;

/** Meters of the collector streams. Thread-safe. */
final class EndpointMetrics {

  private final MeterRegistry registry;
  private final AtomicInteger open = new AtomicInteger();
  private final Counter bytesIn;
  private final Counter bytesOut;
  private final Counter staleDropped;
  private final io.micrometer.core.instrument.Timer controlWait;

  EndpointMetrics(MeterRegistry registry) {
    this.registry = registry;
    Gauge.builder("sluice.streams.open", open, AtomicInteger::get).register(registry);
    bytesIn = Counter.builder("sluice.streams.received.bytes").baseUnit("bytes").register(registry);
    bytesOut = Counter.builder("sluice.streams.sent.bytes").baseUnit("bytes").register(registry);
    staleDropped = Counter.builder("sluice.streams.stale.dropped")
        .description("data of an epoch older than the last handshake, dropped before the wire").register(registry);
    controlWait = io.micrometer.core.instrument.Timer.builder("sluice.streams.control.wait")
        .description("from a plane handing a control message to its stream until it is written")
        .publishPercentileHistogram().register(registry);
  }

  void streamOpened() {
    open.incrementAndGet();
  }

  void streamClosed() {
    open.decrementAndGet();
  }

  void received(int bytes) {
    bytesIn.increment(bytes);
  }

  void sent(int bytes) {
    bytesOut.increment(bytes);
  }

  void controlWait(long nanos) {
    controlWait.record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
  }

  void staleDropped() {
    staleDropped.increment();
  }

  /** A call refused before it was served (UNAUTHENTICATED, PERMISSION_DENIED). */
  void refused(ErrorCode code) {
    Counter.builder("sluice.grpc.refused").tag("code", code.name())
        .description("gRPC calls refused by authentication or authorization").register(registry).increment();
  }

  void streamError(ErrorCode code) {
    Counter.builder("sluice.streams.errors").tag("code", code.name()).register(registry).increment();
  }
}
