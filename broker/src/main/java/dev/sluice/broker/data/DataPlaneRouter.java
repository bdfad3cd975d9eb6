package dev.sluice.broker.data;

import dev.sluice.broker.control.DataPlane;
import dev.sluice.broker.control.DataPlaneCommand;
import dev.sluice.broker.control.EventServiceConfig;
import dev.sluice.broker.control.EventServiceLimits;
import dev.sluice.api.DispatcherId;
import dev.sluice.broker.snapshot.ReadChunk;
import dev.sluice.broker.snapshot.SnapshotEnd;
import dev.sluice.broker.snapshot.SnapshotOutlet;
import dev.sluice.broker.snapshot.SnapshotService;
import dev.sluice.broker.store.EventStore;
import dev.sluice.schema.SchemaStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;

/**
 * The data plane as a whole: N {@link DataPlaneVerticle}s with dispatchers hash-partitioned over them
 * for life (instance {@code floorMod(partitionHash(id), N)}), so each dispatcher's commands and events
 * stay in one FIFO. Owns what the instances share: scan slots, the scan-rate limiter, metrics. Snapshot
 * readers reach the instance of a dispatcher through it ({@link SnapshotOutlet}).
 *
 * <pre>{@code
 * DataPlaneRouter dataPlane = new DataPlaneRouter(config, store, schema, registry, System::nanoTime);
 * for (DataPlaneVerticle v : dataPlane.instances()) vertx.deployVerticle(v);
 * store.addResolvedListener(ts -> dataPlane.onResolvedAdvanced());
 * }</pre>
 */
public final class DataPlaneRouter implements DataPlane, SnapshotOutlet {

  private final List<DataPlaneVerticle> instances;
  private final ScanSlots slots;
  private final ScanRateLimiter rate;

  public DataPlaneRouter(EventServiceConfig config, EventStore store, SchemaStore schema, MeterRegistry meters,
      LongSupplier nanoClock) {
    this(config, store, schema, null, meters, nanoClock);
  }

  /** @param snapshots the snapshot readers, or null when this broker cannot read its upstream */
  public DataPlaneRouter(EventServiceConfig config, EventStore store, SchemaStore schema, SnapshotService snapshots,
      MeterRegistry meters, LongSupplier nanoClock) {
    EventServiceLimits limits = config.limits();
    this.slots = new ScanSlots(limits.scanConcurrency());
    this.rate = new ScanRateLimiter(limits.scanRateBytesPerSecond(), nanoClock);
    DataPlaneMetrics metrics = new DataPlaneMetrics(meters, slots);
    ChangefeedProgress progress = new ChangefeedProgress(config.dataPlaneInstances(), meters, nanoClock);
    WaitQueueHeads heads = new WaitQueueHeads(config.dataPlaneInstances());
    List<DataPlaneVerticle> list = new ArrayList<>();
    for (int i = 0; i < config.dataPlaneInstances(); i++) {
      DataPlaneVerticle v = new DataPlaneVerticle(i, config, store, schema, slots, rate, heads, metrics, progress,
          snapshots, nanoClock);
      heads.attach(i, v::retrySoon);
      list.add(v);
    }
    this.instances = List.copyOf(list);
  }

  public List<DataPlaneVerticle> instances() {
    return instances;
  }

  @Override
  public void submit(DataPlaneCommand command) {
    owner(command.id()).submit(command);
  }

  private DataPlaneVerticle owner(DispatcherId id) {
    return instances.get(Math.floorMod(id.partitionHash(), instances.size()));
  }

  @Override
  public CompletionStage<Boolean> hold(DispatcherId id, long epoch) {
    CompletableFuture<Boolean> held = new CompletableFuture<>();
    owner(id).snapshotHold(id, epoch, held);
    return held;
  }

  @Override
  public void unhold(DispatcherId id, long epoch) {
    owner(id).snapshotUnhold(id, epoch);
  }

  @Override
  public void chunk(DispatcherId id, long epoch, ReadChunk chunk) {
    owner(id).snapshotChunk(id, epoch, chunk);
  }

  @Override
  public void ended(DispatcherId id, long epoch, SnapshotEnd end) {
    owner(id).snapshotEnded(id, epoch, end);
  }

  /** Wakes every instance after the stores' resolved ts advanced. Non-blocking; any thread. */
  public void onResolvedAdvanced() {
    for (DataPlaneVerticle v : instances) {
      v.onResolvedAdvanced();
    }
  }

  /** Applies validated limits to the shared limiters and every instance. */
  public void updateLimits(EventServiceLimits limits) {
    slots.setLimit(limits.scanConcurrency());
    rate.setRate(limits.scanRateBytesPerSecond());
    for (DataPlaneVerticle v : instances) {
      v.updateLimits(limits);
    }
  }
}
