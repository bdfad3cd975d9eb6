package dev.sluice.schema;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * Table id to {@link TableHistory}, read without locks and without allocation: the lookup of every
 * {@code tableInfoAt}, where a {@code ConcurrentHashMap<Long, …>} would box the id on each call.
 *
 * <p>An open-addressing table (linear probing) of the histories themselves, keyed by their own
 * {@link TableHistory#tableId()}. Entries are only inserted or replaced, never removed (a dropped table
 * keeps its tombstone history), which is what makes one writer and lock-free readers simple: the
 * writer stores a slot with release semantics, readers load it with acquire semantics, and a resize
 * fills a new array before publishing it through a volatile field. A reader still probing the old
 * array sees the state from just before the resize.
 *
 * <p><b>Concurrency.</b> {@link #put} from one thread at a time (the store's writer); {@link #get},
 * {@link #size} and {@link #values} from any thread.
 */
final class TableHistoryMap {

  private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(TableHistory[].class);
  private static final int INITIAL_CAPACITY = 64;

  private volatile TableHistory[] slots = new TableHistory[INITIAL_CAPACITY];
  private volatile int size;

  TableHistory get(long tableId) {
    TableHistory[] s = slots;
    int mask = s.length - 1;
    for (int i = spread(tableId) & mask; ; i = (i + 1) & mask) {
      TableHistory h = (TableHistory) SLOT.getAcquire(s, i);
      if (h == null || h.tableId() == tableId) {
        return h;
      }
    }
  }

  /** Inserts the history or replaces the one with the same table id. */
  void put(TableHistory history) {
    TableHistory[] s = slots;
    int i = slotOf(s, history.tableId());
    if (s[i] == null) {
      if ((size + 1) * 2 > s.length) {   // keep the load at or below one half: short probes
        s = grown(s);
        i = slotOf(s, history.tableId());
        SLOT.setRelease(s, i, history);
        slots = s;
        size = size + 1;
        return;
      }
      size = size + 1;
    }
    SLOT.setRelease(s, i, history);
  }

  int size() {
    return size;
  }

  /** A snapshot of every history, in no particular order. */
  List<TableHistory> values() {
    TableHistory[] s = slots;
    List<TableHistory> values = new ArrayList<>(size);
    for (int i = 0; i < s.length; i++) {
      TableHistory h = (TableHistory) SLOT.getAcquire(s, i);
      if (h != null) {
        values.add(h);
      }
    }
    return values;
  }

  private static TableHistory[] grown(TableHistory[] s) {
    TableHistory[] bigger = new TableHistory[s.length * 2];
    for (TableHistory h : s) {
      if (h != null) {
        bigger[slotOf(bigger, h.tableId())] = h;
      }
    }
    return bigger;
  }

  /** The slot holding this id, or the empty slot where it belongs. */
  private static int slotOf(TableHistory[] s, long tableId) {
    int mask = s.length - 1;
    int i = spread(tableId) & mask;
    while (s[i] != null && s[i].tableId() != tableId) {
      i = (i + 1) & mask;
    }
    return i;
  }

  /** Mixes the id's bits so that sequential ids (PostgreSQL oids) do not form long probe runs. */
  private static int spread(long tableId) {
    long h = tableId * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32));
  }
}
