package dev.sluice.broker.data;

import dev.sluice.broker.control.DataPlane;
import dev.sluice.broker.control.DataPlaneCommand;
import dev.sluice.broker.control.EventServiceConfig;
import dev.sluice.broker.control.EventServiceLimits;
import dev.sluice.broker.store.EventStore;
import dev.sluice.schema.SchemaStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The data plane as a whole: N {@link DataPlaneVerticle}s with dispatchers hash-partitioned over them
 * for life (instance {@code floorMod(partitionHash(id), N)}), so each dispatcher's commands and events
 * stay in one FIFO. Owns what the instances share: scan slots, the scan-rate limiter, metrics.
 *
 * <pre>{@code
 * DataPlaneRouter dataPlane = new DataPlaneRouter(config, store, schema, registry, System::nanoTime);
 * for (DataPlaneVerticle v : dataPlane.instances()) vertx.deployVerticle(v);
 * store.addResolvedListener(ts -> dataPlane.onResolvedAdvanced());
 * }</pre>
 */
public final class DataPlaneRouter implements DataPlane {

  private final List<DataPlaneVerticle> instances;
  private final ScanSlots slots;
  private final ScanRateLimiter rate;

  public DataPlaneRouter(EventServiceConfig config, EventStore store, SchemaStore schema, MeterRegistry meters,
      LongSupplier nanoClock) {
    EventServiceLimits limits = config.limits();
    this.slots = new ScanSlots(limits.scanConcurrency());
    this.rate = new ScanRateLimiter(limits.scanRateBytesPerSecond(), nanoClock);
    DataPlaneMetrics metrics = new DataPlaneMetrics(meters, slots);
    ChangefeedProgress progress = new ChangefeedProgress(config.dataPlaneInstances(), meters, nanoClock);
    WaitQueueHeads heads = new WaitQueueHeads(config.dataPlaneInstances());
    List<DataPlaneVerticle> list = new ArrayList<>();
    for (int i = 0; i < config.dataPlaneInstances(); i++) {
      DataPlaneVerticle v = new DataPlaneVerticle(i, config, store, schema, slots, rate, heads, metrics, progress,
          nanoClock);
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
    instances.get(Math.floorMod(command.id().partitionHash(), instances.size())).submit(command);
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
