package dev.sluice.dispatcher.collector;

import dev.sluice.dispatcher.ChangeListener;
import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.DdlChange;
import dev.sluice.dispatcher.SnapshotOutcome;
import dev.sluice.dispatcher.StateChange;
import dev.sluice.dispatcher.Transaction;

/** One item of a {@link DeliveryQueue}: what to call on the listener, its bytes, and the position it reaches. */
abstract class Delivery {

  private final long bytes;

  Delivery(long bytes) {
    this.bytes = bytes;
  }

  long bytes() {
    return bytes;
  }

  /** The commit ts this item is about, for error messages. */
  abstract long ts();

  /** The position the listener has seen once this item was delivered. */
  abstract Checkpoint position();

  abstract void deliverTo(ChangeListener listener);

  static Delivery transaction(Transaction txn, long bytes) {
    return new Delivery(bytes) {
      @Override long ts() { return txn.commitTs(); }
      @Override Checkpoint position() { return txn.checkpoint(); }
      @Override void deliverTo(ChangeListener listener) { listener.onTransaction(txn); }
    };
  }

  static Delivery ddl(DdlChange ddl, long bytes) {
    return new Delivery(bytes) {
      @Override long ts() { return ddl.commitTs(); }
      // rows of the same transaction may follow the DDL: its position is inside the transaction
      @Override Checkpoint position() { return ddl.position(); }
      @Override void deliverTo(ChangeListener listener) { listener.onDdl(ddl); }
    };
  }

  /** The end of the snapshot, at {@code position} (it moves nothing). */
  static Delivery snapshotDone(SnapshotOutcome outcome, Checkpoint position) {
    return new Delivery(0) {
      @Override long ts() { return position.ts(); }
      @Override Checkpoint position() { return position; }
      @Override void deliverTo(ChangeListener listener) { listener.onSnapshotComplete(outcome); }
    };
  }

  static Delivery syncPoint(long ts) {
    return new Delivery(0) {
      @Override long ts() { return ts; }
      @Override Checkpoint position() { return Checkpoint.at(ts); }
      @Override void deliverTo(ChangeListener listener) { listener.onSyncPoint(ts); }
    };
  }

  /** A state change of the subscription: moves no position. */
  static Delivery stateChange(StateChange change) {
    return new Delivery(0) {
      @Override long ts() { return 0; }
      @Override Checkpoint position() { return Checkpoint.at(0); }
      @Override void deliverTo(ChangeListener listener) { listener.onStateChange(change); }
    };
  }

  /** A resolved watermark; its ts may be raised while it waits in the queue (coalescing). */
  static final class Resolved extends Delivery {
    private volatile long ts;

    Resolved(long ts) {
      super(0);
      this.ts = ts;
    }

    void raiseTo(long newTs) {
      ts = Math.max(ts, newTs);
    }

    @Override long ts() { return ts; }
    @Override Checkpoint position() { return Checkpoint.at(ts); }
    @Override void deliverTo(ChangeListener listener) { listener.onResolved(ts); }
  }
}
