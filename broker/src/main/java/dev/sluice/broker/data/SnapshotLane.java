package dev.sluice.broker.data;

import dev.sluice.broker.snapshot.ReadChunk;
import dev.sluice.broker.snapshot.SnapshotEnd;
import dev.sluice.broker.snapshot.SnapshotRow;
import dev.sluice.broker.snapshot.SnapshotSession;
import java.util.ArrayDeque;
import java.util.List;

/**
 * A dispatcher epoch's snapshot as its data plane sees it: where the stream must stop for the next chunk,
 * and how far that chunk's READ rows went out. Owned by the {@link DataPlaneVerticle} of the dispatcher,
 * like the rest of its {@link DispatcherStream}.
 *
 * <p><b>The bound.</b> A reader about to write a high watermark first takes a hold: the stream sends
 * nothing above the resolved ts of that moment ({@link #holdTs}), which is below the watermark still to
 * come. When the chunk arrives its high watermark H bounds the stream: the stream runs up to H, then the
 * chunk's rows go out at H (as the parts of one DmlBatch at H, its last part with the SnapshotProgress),
 * and only then anything above H or a Resolved at H. So a READ row comes after every change up to H and
 * before every later one, which is what the watermark merge relies on. A chunk read ahead waits behind the
 * one going out ({@link #chunks}, in read order); the bound is the lowest of the head's H and the hold.
 */
final class SnapshotLane {

  final SnapshotSession session;
  /** The stream sends nothing above this until the next chunk arrives; -1: no hold. */
  long holdTs = -1;
  long heldAtNanos;
  /** The chunks to deliver, each at its high watermark, in read order; the head is going out. */
  final ArrayDeque<ReadChunk> chunks = new ArrayDeque<>();
  /** The head's rows after the watermark merge; null until merged. */
  List<SnapshotRow> merged;
  /** First merged row not sent yet, and the fragment index of the next part. */
  int nextRow;
  int nextFragment;
  /** An end to announce (SnapshotDone) when no chunk is out; null: none. */
  SnapshotEnd pendingEnd;
  /** SnapshotDone went out: nothing of this snapshot follows in the epoch. */
  boolean done;

  SnapshotLane(SnapshotSession session) {
    this.session = session;
  }

  /** The chunk going out, or null. */
  ReadChunk head() {
    return chunks.peekFirst();
  }

  /** The highest commit ts the stream may reach now, given the stores' {@code target}. */
  long bound(long target) {
    long b = target;
    ReadChunk head = chunks.peekFirst();
    if (head != null) {
      b = Math.min(b, head.highTs());
    }
    return holdTs >= 0 ? Math.min(b, holdTs) : b;
  }

  /** Whether the stream stands at a chunk's high watermark with rows still to send: inside a transaction. */
  boolean inChunkAt(long progressTs) {
    ReadChunk head = chunks.peekFirst();
    return head != null && progressTs >= head.highTs();
  }

  /** Whether the lane has something to send now, the stream being at {@code progressTs} outside a transaction. */
  boolean hasWork(long progressTs) {
    return inChunkAt(progressTs) || (chunks.isEmpty() && pendingEnd != null && !done);
  }

  /** Takes the head off the lane (delivered); the next chunk's merge starts afresh. */
  void pollHead() {
    chunks.pollFirst();
    merged = null;
    nextRow = 0;
    nextFragment = 0;
  }

  /** Drops every chunk (the head is read again: the ones after it were read after it and go too). */
  void clearChunks() {
    chunks.clear();
    merged = null;
    nextRow = 0;
    nextFragment = 0;
  }
}
