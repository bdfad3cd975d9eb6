package dev.sluice.broker.capture;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Capture's meters. Counters are bumped on the capture thread; gauges read volatile state.
 *
 * <pre>{@code
 * CaptureMetrics m = new CaptureMetrics(registry, capture::lagMs);
 * m.rowsInserted.increment();
 * }</pre>
 */
final class CaptureMetrics {

  final Counter rowsInserted;
  final Counter rowsUpdated;
  final Counter rowsDeleted;
  final Counter txns;
  final Counter bytes;
  final Counter fragments;
  final Counter fallbackValues;
  final Counter ddlEvents;
  final Counter derivedDdlEvents;
  final Counter rejectedDdlEvents;
  final Counter volatileDefaultColumns;
  final DistributionSummary groupCommitTxns;
  /** Bytes of rows buffered and not yet written, now and at most since start. */
  final AtomicLong bufferedBytes = new AtomicLong();
  final AtomicLong maxBufferedBytes = new AtomicLong();

  CaptureMetrics(MeterRegistry registry, LongSupplier lagMs) {
    rowsInserted = rows(registry, "insert");
    rowsUpdated = rows(registry, "update");
    rowsDeleted = rows(registry, "delete");
    txns = Counter.builder("sluice.capture.txns").description("transactions captured").register(registry);
    bytes = Counter.builder("sluice.capture.bytes").baseUnit("bytes")
        .description("encoded row-change bytes captured").register(registry);
    fragments = Counter.builder("sluice.capture.fragments")
        .description("writes of part of a still open transaction (large transactions)").register(registry);
    fallbackValues = Counter.builder("sluice.capture.fallback.values")
        .description("values of types without a typed mapping, captured as text").register(registry);
    ddlEvents = Counter.builder("sluice.capture.ddl.events").description("schema versions applied").register(registry);
    derivedDdlEvents = Counter.builder("sluice.capture.ddl.derived")
        .description("schema versions derived from Relation messages").register(registry);
    rejectedDdlEvents = Counter.builder("sluice.capture.ddl.rejected")
        .description("captured schema changes the schema store refused (capture went on)").register(registry);
    volatileDefaultColumns = Counter.builder("sluice.capture.ddl.volatile.defaults")
        .description("columns added with a default that is not immutable: their existing rows differ downstream")
        .register(registry);
    groupCommitTxns = DistributionSummary.builder("sluice.capture.group.commit.txns")
        .description("transactions per synced event-store batch").register(registry);
    Gauge.builder("sluice.capture.lag.ms", lagMs::getAsLong).baseUnit("milliseconds")
        .description("now minus the commit time of the last stored transaction").register(registry);
    Gauge.builder("sluice.capture.buffer.bytes", bufferedBytes::get).baseUnit("bytes")
        .description("row bytes buffered for the next event-store write").register(registry);
    Gauge.builder("sluice.capture.buffer.max.bytes", maxBufferedBytes::get).baseUnit("bytes")
        .description("the most row bytes ever buffered at once (bounded by the memory cap)").register(registry);
  }

  void buffered(long bytesNow) {
    bufferedBytes.set(bytesNow);
    if (bytesNow > maxBufferedBytes.get()) {
      maxBufferedBytes.set(bytesNow);
    }
  }

  private static Counter rows(MeterRegistry registry, String op) {
    return Counter.builder("sluice.capture.rows").tag("op", op).description("row changes captured").register(registry);
  }
}
