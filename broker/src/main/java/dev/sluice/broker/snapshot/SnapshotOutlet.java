package dev.sluice.broker.snapshot;

import dev.sluice.api.DispatcherId;
import java.util.concurrent.CompletionStage;

/**
 * The data plane as snapshot readers see it: it owns the dispatchers' streams, so the readers only send
 * it messages. Every method returns at once and may be called from any thread; a message for an epoch
 * that is no longer current is dropped (and a hold completes false).
 */
public interface SnapshotOutlet {

  /**
   * Asks the stream of {@code (id, epoch)} to send nothing above the resolved ts it has now, until this
   * snapshot's next chunk arrives: the reader is about to write a high watermark, and the stream must not
   * pass it before the chunk is there. Completes true once held, false when the epoch is gone.
   */
  CompletionStage<Boolean> hold(DispatcherId id, long epoch);

  /** Lifts a hold without a chunk (the read failed after the hold was taken). */
  void unhold(DispatcherId id, long epoch);

  /** A chunk to merge and deliver at its high watermark. */
  void chunk(DispatcherId id, long epoch, ReadChunk chunk);

  /** The snapshot ended without a last chunk (dropped table, failure, cancel): send its SnapshotDone. */
  void ended(DispatcherId id, long epoch, SnapshotEnd end);
}
