package dev.sluice.broker.snapshot;

import dev.sluice.api.error.ErrorCode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * The snapshot readers' meters. Rows and bytes are counted when read from the upstream and when
 * delivered (after the watermark merge, whose superseded rows are the difference).
 */
final class SnapshotMetrics {

  private final MeterRegistry registry;
  private final Counter rowsRead;
  private final Counter bytesRead;
  private final Counter rowsDelivered;
  private final Counter rowsSuperseded;
  private final Counter chunksDelivered;
  private final Counter chunksReread;
  private final Timer chunkRead;
  private final Counter chunksByCopy;
  private final Counter chunksByCursor;
  private final Timer watermarkWait;
  private final Timer throttled;

  SnapshotMetrics(MeterRegistry registry) {
    this.registry = registry;
    rowsRead = Counter.builder("sluice.snapshot.rows.read").baseUnit("rows")
        .description("rows snapshot chunks read from the upstream").register(registry);
    bytesRead = Counter.builder("sluice.snapshot.bytes.read").baseUnit("bytes")
        .description("encoded bytes of the rows snapshot chunks read").register(registry);
    rowsDelivered = Counter.builder("sluice.snapshot.rows.delivered").baseUnit("rows")
        .description("READ rows sent to dispatchers").register(registry);
    rowsSuperseded = Counter.builder("sluice.snapshot.rows.superseded").baseUnit("rows")
        .description("chunk rows dropped or cut down because a change between the watermarks touched them")
        .register(registry);
    chunksDelivered = Counter.builder("sluice.snapshot.chunks").tag("outcome", "delivered").baseUnit("chunks")
        .description("snapshot chunks, by what became of them").register(registry);
    chunksReread = Counter.builder("sluice.snapshot.chunks").tag("outcome", "reread").baseUnit("chunks")
        .description("snapshot chunks, by what became of them").register(registry);
    chunkRead = Timer.builder("sluice.snapshot.chunk.read").publishPercentileHistogram()
        .description("one chunk's SELECT, first row to last").register(registry);
    chunksByCopy = Counter.builder("sluice.snapshot.chunks.read").tag("form", "copy_text").baseUnit("chunks")
        .description("chunks read, by form: COPY text lines that go out as they came (feature copy-text), or"
            + " values parsed from a cursor's rows").register(registry);
    chunksByCursor = Counter.builder("sluice.snapshot.chunks.read").tag("form", "values").baseUnit("chunks")
        .description("chunks read, by form: COPY text lines that go out as they came (feature copy-text), or"
            + " values parsed from a cursor's rows").register(registry);
    watermarkWait = Timer.builder("sluice.snapshot.watermark.wait").publishPercentileHistogram()
        .description("from writing a watermark to capture seeing it").register(registry);
    throttled = Timer.builder("sluice.snapshot.throttle.wait")
        .description("time readers waited for the snapshot rate limits").register(registry);
  }

  <T> void gauge(String name, String description, String unit, T source, ToDoubleFunction<T> f) {
    Gauge.builder(name, source, f).description(description).baseUnit(unit).register(registry);
  }

  <T> void stateGauge(SessionState state, T source, ToDoubleFunction<T> f) {
    Gauge.builder("sluice.snapshot.sessions", source, f).tag("state", state.name())
        .description("snapshots on this broker, by state").register(registry);
  }

  void chunkRead(int rows, long bytes, long nanos, boolean copyText) {
    (copyText ? chunksByCopy : chunksByCursor).increment();
    rowsRead.increment(rows);
    bytesRead.increment(bytes);
    chunkRead.record(nanos, TimeUnit.NANOSECONDS);
  }

  void chunkDelivered(int rowsInChunk, long rowsSent) {
    chunksDelivered.increment();
    rowsDelivered.increment(rowsSent);
    rowsSuperseded.increment(Math.max(0, rowsInChunk - rowsSent));
  }

  void chunkReread() {
    chunksReread.increment();
  }

  void watermarkWait(long nanos) {
    watermarkWait.record(nanos, TimeUnit.NANOSECONDS);
  }

  void throttled(long nanos) {
    throttled.record(nanos, TimeUnit.NANOSECONDS);
  }

  void failure(ErrorCode code) {
    Counter.builder("sluice.snapshot.failures").tag("code", code.name()).baseUnit("attempts")
        .description("chunk reads that failed and were tried again").register(registry).increment();
  }
}
