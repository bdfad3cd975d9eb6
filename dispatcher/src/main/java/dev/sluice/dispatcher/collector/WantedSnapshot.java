package dev.sluice.dispatcher.collector;

import dev.sluice.dispatcher.SnapshotCursor;
import dev.sluice.dispatcher.SnapshotMark;
import java.util.Objects;

/**
 * The snapshot one dispatcher still wants: where it continues (the cursor of the last chunk queued for the
 * listener, the subscription's start at first), whether the user paused it, and what the RESET in flight (or
 * the current epoch's) asked for. {@link DispatcherSession} starts a new epoch when the wish changes; the
 * epoch's chunks move the cursor on.
 *
 * <pre>{@code
 * WantedSnapshot snapshot = new WantedSnapshot(subscription.snapshot());
 * if (snapshot.pause()) { ... }       // true: a new epoch without the snapshot is needed
 * snapshot.toRequest();              // null while paused; the cursor is kept for resume()
 * }</pre>
 *
 * <p>Invariant: a null cursor means none is wanted (the subscription asked for none, or its snapshot ended or
 * was cancelled), and nothing but {@link #restartFrom} brings it back.
 *
 * <p>Concurrency: every method runs on the collector's context, except {@link #cursor()} and {@link #paused()},
 * which read volatiles.
 */
final class WantedSnapshot {

  /**
   * Where the snapshot continues: the cursor of the last chunk queued for the listener (the start at first);
   * null when the subscription asked for none, or its snapshot ended. Every REGISTER and RESET asks for it
   * unless paused.
   */
  private volatile SnapshotCursor cursor;
  private volatile boolean paused;
  /** What the RESET in flight (or the epoch's) asked for; null: no snapshot. */
  private SnapshotCursor sent;

  /** Wants the snapshot from {@code start}; null: none. */
  WantedSnapshot(SnapshotCursor start) {
    this.cursor = start;
  }

  /** Where the snapshot would continue, or null when none is wanted. */
  SnapshotCursor cursor() {
    return cursor;
  }

  boolean paused() {
    return paused;
  }

  /** What the next REGISTER or RESET asks for: the cursor, or null when none is wanted or it is paused. */
  SnapshotCursor toRequest() {
    return paused ? null : cursor;
  }

  /** Pauses a wanted snapshot, keeping its cursor; whether that changed anything. */
  boolean pause() {
    if (cursor != null && !paused) {
      paused = true;
      return true;
    }
    return false;
  }

  /** Resumes a paused snapshot from its cursor; whether that changed anything. */
  boolean resume() {
    if (cursor != null && paused) {
      paused = false;
      return true;
    }
    return false;
  }

  /** Wants no snapshot any more; whether one was wanted. */
  boolean cancel() {
    if (cursor == null) {
      return false;
    }
    cursor = null;
    paused = false;
    return true;
  }

  /** Wants the span's rows again from {@code from} (a re-snapshot), unpaused. */
  void restartFrom(SnapshotCursor from) {
    cursor = from;
    paused = false;
  }

  /** A chunk ending at {@code mark} was queued for the listener: a later epoch continues after it. */
  void chunkQueued(SnapshotMark mark) {
    if (cursor != null) {
      cursor = mark.next();
    }
  }

  /** The broker said the snapshot ended: no later epoch asks for it again; whether it was still wanted. */
  boolean end() {
    if (cursor == null) {
      return false;
    }
    cursor = null;
    return true;
  }

  /** A RESET carrying {@link #toRequest()} is being sent. */
  void markSent() {
    sent = toRequest();
  }

  /** Whether the wish differs from what the current epoch's RESET asked for. */
  boolean changedSinceSent() {
    return !Objects.equals(sent, toRequest());
  }
}
