package dev.sluice.broker.changefeed;

import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;

/**
 * What the supervisor needs of the broker it runs in: where to connect when a changefeed names no
 * brokers, what "now" is for a changefeed created without a start ts, and how many dispatchers of a
 * changefeed the local event service still holds (a deletion waits for zero).
 *
 * <pre>{@code
 * HostBroker host = new LocalHostBroker(eventService, eventStore, schemaStore);
 * long now = host.resolvedTs();
 * }</pre>
 */
public interface HostBroker {

  /** This broker's gRPC address as a client reaches it ({@code host:port}). */
  String grpcAddress();

  /** The ts a changefeed created "now" starts after: the broker's resolved ts. */
  long resolvedTs();

  /** How hosted changefeeds dial brokers: TLS, client certificate, token (none on an open loopback node). */
  default dev.sluice.dispatcher.ClientSecurity clientSecurity() {
    return dev.sluice.dispatcher.ClientSecurity.none();
  }

  /** Dispatchers of {@code changefeedId} registered on this broker. */
  CompletionStage<Long> dispatchersOf(String changefeedId);

  /**
   * Makes this broker's GC keep everything after {@code lowestHeldTs} (the lowest checkpoint the hosted
   * changefeeds hold, {@link Long#MAX_VALUE} for none); read from the GC's thread.
   */
  void holdGc(LongSupplier lowestHeldTs);
}
