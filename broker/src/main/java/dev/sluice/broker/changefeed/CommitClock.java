package dev.sluice.broker.changefeed;

import dev.sluice.broker.store.EventStore;
import dev.sluice.broker.store.TimeMark;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Turns a checkpoint into a lag in milliseconds: how long the oldest transaction after it (and at or
 * below the store's resolved ts) has been waiting since its upstream commit, from the event store's
 * time marks; 0 when nothing is waiting. Commit ts are log positions, not times, hence the lookup.
 * Reads RocksDB: call it off the event loop.
 *
 * <pre>{@code
 * long lagMs = new CommitClock(store, System::currentTimeMillis).lagMs(checkpointTs);
 * }</pre>
 */
public final class CommitClock {

  /** First window of commit ts searched after the checkpoint; doubled until a mark is found. */
  private static final long FIRST_WINDOW = 1 << 16;

  private final EventStore store;
  private final LongSupplier nowMs;

  public CommitClock(EventStore store, LongSupplier nowMs) {
    this.store = store;
    this.nowMs = nowMs;
  }

  /** The store's resolved ts. */
  public long resolvedTs() {
    return store.resolvedTs();
  }

  /** Milliseconds the oldest transaction above {@code checkpointTs} has waited, 0 when none; -1 when unknown. */
  public long lagMs(long checkpointTs) {
    long resolved = store.resolvedTs();
    if (checkpointTs >= resolved) {
      return 0;
    }
    // doubling windows keep the read small when the checkpoint is close, which is the usual case
    for (long window = FIRST_WINDOW, from = checkpointTs; from < resolved; window <<= 1) {
      long to = window >= resolved - from ? resolved : from + window;
      List<TimeMark> marks = store.timeMarks(from, to);
      if (!marks.isEmpty()) {
        long micros = marks.get(0).commitTimeMicros();
        return micros <= 0 ? -1 : Math.max(0, nowMs.getAsLong() - micros / 1000);
      }
      from = to;
    }
    return 0;
  }
}
