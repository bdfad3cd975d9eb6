package dev.sluice.broker.admin;

import dev.sluice.broker.capture.CaptureStatus;
import dev.sluice.broker.changefeed.ChangefeedSupervisor;
import dev.sluice.broker.changefeed.CommitClock;
import dev.sluice.broker.config.LiveConfig;
import dev.sluice.broker.cluster.ClusterNode;
import dev.sluice.broker.server.EventService;
import dev.sluice.schema.SchemaStore;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * What the admin API reads and changes: the hosted changefeeds, the event service (dispatchers,
 * limits, identity), the capture's status, the stores' clocks, the meter registry and the broker's
 * configuration.
 *
 * <pre>{@code
 * AdminResources r = new AdminResources(supervisor, eventService, capture::status, clock, schemaStore, registry,
 *     broker.liveConfig(), cluster, node);
 * }</pre>
 *
 * @param changefeeds  the changefeed supervisor
 * @param eventService the gRPC event service
 * @param capture      the capture's current status
 * @param clock        resolved ts and lag in ms of a checkpoint
 * @param schema       the schema store (its resolved ts bounds what dispatchers can get)
 * @param registry     every meter of the broker, scraped by {@code /metrics}
 * @param config       the settings in force and their sources; runtime changes ({@code /api/v1/config})
 * @param cluster      this node's cluster (membership, coordinator, assignments): requests about a changefeed
 *                     another node hosts are forwarded there
 * @param node         drains this node
 */
public record AdminResources(ChangefeedSupervisor changefeeds, EventService eventService,
    Supplier<CaptureStatus> capture, CommitClock clock, SchemaStore schema, PrometheusMeterRegistry registry,
    LiveConfig config, ClusterNode cluster, NodeControl node) {

  public AdminResources {
    Objects.requireNonNull(changefeeds, "changefeeds");
    Objects.requireNonNull(eventService, "eventService");
    Objects.requireNonNull(capture, "capture");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(registry, "registry");
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(cluster, "cluster");
    Objects.requireNonNull(node, "node");
  }

  /** The ts every dispatcher can be served up to: the lower of the two stores' resolved ts. */
  public long servableTs() {
    return Math.min(clock.resolvedTs(), schema.resolvedTs());
  }
}
