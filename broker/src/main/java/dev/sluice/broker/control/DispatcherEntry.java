package dev.sluice.broker.control;

import dev.sluice.api.DispatcherId;

/**
 * The control plane's mutable record of one dispatcher. Owned by {@link ControlPlaneVerticle}'s
 * context: never touched from another thread.
 */
final class DispatcherEntry {

  final DispatcherRegistration registration;
  CollectorLink link;
  /** 0 = registered, not streaming. */
  long epoch;
  /** Whether the current epoch got its handshake (false after a rejected RESET). */
  boolean streaming;
  /** Lowest ts whose successors this dispatcher may still need: GC never passes it. */
  long checkpointTs;

  DispatcherEntry(DispatcherRegistration registration, CollectorLink link) {
    this.registration = registration;
    this.link = link;
    this.checkpointTs = registration.startTs();
  }

  DispatcherId id() {
    return registration.id();
  }
}
