package dev.sluice.broker.data;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** The data plane's meters, shared by every instance. Thread-safe. */
final class DataPlaneMetrics {

  /** Why a dispatcher that is behind did not get a scan this round. */
  enum SkipReason { NO_CREDIT, RATE_LIMITED, NO_SLOT, NO_ROOM }

  final Counter scansStarted;
  final Counter scansCancelled;
  final Counter scansFailed;
  final Counter streamFailures;
  final Counter idleAdvances;
  final Counter staleResultsDropped;
  final Map<SkipReason, Counter> skipped = new EnumMap<>(SkipReason.class);
  final Counter dmlSent;
  final Counter ddlSent;
  final Counter syncPointsSent;
  final Counter resolvedSent;
  final Counter snapshotDoneSent;
  final Timer snapshotHold;
  final Counter eventBytesSent;
  final Counter scanBytesRead;
  final DistributionSummary scanEvents;
  final AtomicLong waiting = new AtomicLong();
  final AtomicLong streams = new AtomicLong();
  final AtomicLong creditBytes = new AtomicLong();

  DataPlaneMetrics(MeterRegistry r, ScanSlots slots) {
    scansStarted = Counter.builder("sluice.scan.tasks").tag("outcome", "started").register(r);
    scansCancelled = Counter.builder("sluice.scan.tasks").tag("outcome", "cancelled").register(r);
    scansFailed = Counter.builder("sluice.scan.tasks").tag("outcome", "failed").register(r);
    streamFailures = Counter.builder("sluice.data.stream.failures")
        .description("dispatchers that could not be considered for a scan (each backs off, the others go on)")
        .register(r);
    idleAdvances = Counter.builder("sluice.scan.skipped").tag("reason", "idle")
        .description("watermark-only advances of dispatchers with nothing new: no store read").register(r);
    staleResultsDropped = Counter.builder("sluice.scan.results.dropped")
        .description("scan results of an epoch that was reset while the scan ran").register(r);
    for (SkipReason reason : SkipReason.values()) {
      skipped.put(reason, Counter.builder("sluice.scan.skipped").tag("reason", reason.name().toLowerCase()).register(r));
    }
    dmlSent = Counter.builder("sluice.events.sent").tag("type", "dml").register(r);
    ddlSent = Counter.builder("sluice.events.sent").tag("type", "ddl").register(r);
    syncPointsSent = Counter.builder("sluice.events.sent").tag("type", "sync_point").register(r);
    resolvedSent = Counter.builder("sluice.events.sent").tag("type", "resolved").register(r);
    snapshotDoneSent = Counter.builder("sluice.events.sent").tag("type", "snapshot_done").register(r);
    snapshotHold = Timer.builder("sluice.snapshot.hold").publishPercentileHistogram()
        .description("how long a stream was held for a snapshot chunk, from the hold to the chunk's arrival")
        .register(r);
    eventBytesSent = Counter.builder("sluice.events.sent.bytes").baseUnit("bytes").register(r);
    scanBytesRead = Counter.builder("sluice.scan.read.bytes").baseUnit("bytes").register(r);
    scanEvents = DistributionSummary.builder("sluice.scan.events").description("events per scan task").register(r);
    Gauge.builder("sluice.scan.tasks.running", slots, ScanSlots::running).register(r);
    Gauge.builder("sluice.scan.tasks.queued", waiting, AtomicLong::get)
        .description("dispatchers waiting for a scan (rate, slot or queue room)").register(r);
    Gauge.builder("sluice.data.streams", streams, AtomicLong::get).register(r);
    Gauge.builder("sluice.credit.available.bytes", creditBytes, AtomicLong::get)
        .description("sum of the last credit reported by streaming dispatchers").register(r);
  }
}
