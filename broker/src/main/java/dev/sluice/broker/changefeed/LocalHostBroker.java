package dev.sluice.broker.changefeed;

import dev.sluice.broker.server.EventService;
import dev.sluice.broker.store.EventStore;
import dev.sluice.schema.SchemaStore;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;

/**
 * The broker process the supervisor runs in: its own event service, reached at the address it listens
 * on (loopback when that is every interface), and stores.
 *
 * <pre>{@code
 * HostBroker host = new LocalHostBroker(broker.eventService(), broker.eventStore(), broker.schemaStore());
 * }</pre>
 */
public final class LocalHostBroker implements HostBroker {

  private final EventService service;
  private final EventStore events;
  private final SchemaStore schema;
  private final dev.sluice.dispatcher.ClientSecurity security;

  public LocalHostBroker(EventService service, EventStore events, SchemaStore schema) {
    this(service, events, schema, dev.sluice.dispatcher.ClientSecurity.none());
  }

  /** A host whose changefeeds dial brokers with {@code security} (TLS, token). */
  public LocalHostBroker(EventService service, EventStore events, SchemaStore schema,
      dev.sluice.dispatcher.ClientSecurity security) {
    this.service = service;
    this.events = events;
    this.schema = schema;
    this.security = security;
  }

  @Override
  public dev.sluice.dispatcher.ClientSecurity clientSecurity() {
    return security;
  }

  @Override
  public String grpcAddress() {
    return service.listenAddress();   // not the advertised address: that may be a NAT this process cannot reach
  }

  @Override
  public long resolvedTs() {
    return Math.min(events.resolvedTs(), schema.resolvedTs());
  }

  @Override
  public CompletionStage<Long> dispatchersOf(String changefeedId) {
    return service.controlPlane().dispatchers()
        .map(all -> all.stream().filter(d -> changefeedId.equals(d.changefeedId())).count()).toCompletionStage();
  }

  @Override
  public void holdGc(LongSupplier lowestHeldTs) {
    service.controlPlane().holdGc(lowestHeldTs);
  }
}
