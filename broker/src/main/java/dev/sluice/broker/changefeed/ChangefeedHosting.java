package dev.sluice.broker.changefeed;

import dev.sluice.broker.cluster.ClusterNode;
import dev.sluice.broker.cluster.Scheduler;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import java.util.function.LongSupplier;

/**
 * Hosted changefeeds as cluster objects, wired: the {@link ChangefeedSupervisor} (records, runtimes),
 * the {@link AssignmentFollower} (what this node hosts, from the assignment table) and the cluster's
 * {@link Scheduler} (what the coordinator assigns). The same wiring serves a standalone node, whose
 * cluster is itself.
 *
 * <pre>{@code
 * try (ChangefeedHosting h = ChangefeedHosting.start(cluster, store, config, sinks, host, vertx, clock, nowMs, registry)) {
 *   h.supervisor().create("orders", spec, false).join();   // on the coordinator's node
 * }
 * }</pre>
 */
public final class ChangefeedHosting implements AutoCloseable {

  private final ChangefeedSupervisor supervisor;
  private final AssignmentFollower follower;
  private final Scheduler scheduler;

  private ChangefeedHosting(ChangefeedSupervisor supervisor, AssignmentFollower follower, Scheduler scheduler) {
    this.supervisor = supervisor;
    this.follower = follower;
    this.scheduler = scheduler;
  }

  public static ChangefeedHosting start(ClusterNode cluster, ChangefeedStore store, ChangefeedConfig config,
      SinkConnector sinks, HostBroker host, Vertx vertx, CommitClock clock, LongSupplier nowMs, MeterRegistry registry) {
    ChangefeedSupervisor supervisor = ChangefeedSupervisor.start(store, cluster.changefeedRecords(), config, sinks, host,
        vertx, clock, nowMs, registry);
    Scheduler scheduler = Scheduler.start(cluster.config(), cluster.membership(), cluster.coordinator(),
        cluster.assignments(), supervisor::placed, cluster.tokenFloor(), nowMs, registry);
    cluster.changefeedRecords().onChange((id, json) -> scheduler.trigger());
    AssignmentFollower follower = AssignmentFollower.start(cluster.membership().localNodeId(), cluster.assignments(),
        supervisor, cluster.tokenFloor());
    return new ChangefeedHosting(supervisor, follower, scheduler);
  }

  public ChangefeedSupervisor supervisor() {
    return supervisor;
  }

  /** Asks the coordinator's scheduler for a round now (a member changed state). */
  public void reschedule() {
    scheduler.trigger();
  }

  /** Stops following and placing, then every runtime (records keep their states). */
  @Override
  public void close() {
    scheduler.close();
    follower.close();
    supervisor.close();
  }
}
