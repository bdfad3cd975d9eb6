package dev.sluice.broker.data;

import dev.sluice.broker.store.EventStore;
import dev.sluice.broker.store.TimeMark;
import java.util.List;

/**
 * The time marks of a scan's range, read from the store a window at a time as the scan reaches them:
 * a scan that stops after its budget reads only the marks up to where it stopped, so a catch-up over
 * many transactions costs linear, not quadratic, mark reads. Not thread-safe: one scan.
 */
final class MarkWindow {

  /** Marks fetched per store read. */
  static final int WINDOW = 1024;

  private final EventStore store;
  private final long toInclusive;
  private List<TimeMark> window = List.of();
  private int index;
  private long fetchedThrough;
  private boolean exhausted;

  MarkWindow(EventStore store, long fromExclusive, long toInclusive) {
    this.store = store;
    this.toInclusive = toInclusive;
    this.fetchedThrough = fromExclusive;
  }

  /** Commit ts of the next mark, {@link Long#MAX_VALUE} when none is left in the range. */
  long nextTs() {
    if (index == window.size()) {
      fill();
    }
    return index < window.size() ? window.get(index).commitTs() : Long.MAX_VALUE;
  }

  /** The next mark; call only after {@link #nextTs()} returned a ts in range. */
  TimeMark next() {
    return window.get(index++);
  }

  private void fill() {
    if (exhausted) {
      return;
    }
    window = store.timeMarks(fetchedThrough, toInclusive, WINDOW);
    index = 0;
    if (window.size() < WINDOW) {
      exhausted = true;
    }
    if (!window.isEmpty()) {
      fetchedThrough = window.get(window.size() - 1).commitTs();
    }
  }
}
