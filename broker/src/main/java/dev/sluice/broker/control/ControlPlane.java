package dev.sluice.broker.control;

import dev.sluice.api.v1.DispatcherRequest;
import dev.sluice.api.v1.HeartbeatBatch;
import io.vertx.core.Future;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The control plane as the stream endpoint and the admin API see it: a mailbox of immutable inputs.
 * Every method returns at once; the work runs on the control plane's own thread.
 */
public interface ControlPlane {

  /** One REGISTER / RESET / REMOVE from a stream; it gets exactly one ControlAck on that stream. */
  void onRequest(CollectorLink link, DispatcherRequest request, long receivedAtNanos);

  /** A heartbeat batch; the answer (a HeartbeatResponse) goes back on the same stream. */
  void onHeartbeats(CollectorLink link, HeartbeatBatch batch);

  /** The stream closed: its dispatchers are dropped (their checkpoints still hold back GC a while). */
  void onLinkClosed(CollectorLink link);

  /** A snapshot of every registered dispatcher. */
  Future<List<DispatcherView>> dispatchers();

  /** Applies new limits (already validated). */
  void updateLimits(EventServiceLimits limits);

  /**
   * Adds a bound the GC point never passes besides the dispatchers': {@code lowestHeldTs} answers the
   * lowest ts some consumer that is not connected still needs ({@link Long#MAX_VALUE} for none), such as
   * the hosted changefeeds' checkpoints. Called from the control plane's thread: thread-safe and cheap.
   */
  void holdGc(LongSupplier lowestHeldTs);
}
