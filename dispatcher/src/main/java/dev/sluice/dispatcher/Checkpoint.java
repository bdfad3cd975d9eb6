package dev.sluice.dispatcher;

/**
 * Durable progress of a subscription: every transaction with commit ts {@code <= ts}, plus, when
 * {@link #hasCursor()}, the rows of the transaction at {@code cursorCommitTs} whose row seq is below
 * {@code nextRowSeq} (a large transaction applied in fragments). Exactly one transaction has a given
 * commit ts, so a cursor always sits at {@code ts + 1}.
 *
 * <pre>{@code
 * handle.acknowledge(Checkpoint.at(txn.commitTs()));
 * handle.acknowledge(fragment.checkpoint());   // inside a fragmented transaction
 * }</pre>
 *
 * @param ts             every transaction with commit ts {@code <= ts} is applied
 * @param cursorCommitTs commit ts of a partly applied transaction, or 0 for none
 * @param nextRowSeq     first row seq of that transaction not yet applied (0 when no cursor)
 */
public record Checkpoint(long ts, long cursorCommitTs, long nextRowSeq) implements Comparable<Checkpoint> {

  /** Checks that a cursor sits at {@code ts + 1} and that a row seq comes with a cursor. */
  public Checkpoint {
    if (ts < 0) {
      throw new IllegalArgumentException("checkpoint ts must be >= 0, got " + ts);
    }
    if (cursorCommitTs != 0 && cursorCommitTs != ts + 1) {
      throw new IllegalArgumentException("a cursor sits at ts + 1: ts " + ts + ", cursor commit ts " + cursorCommitTs);
    }
    if (nextRowSeq < 0 || (cursorCommitTs == 0 && nextRowSeq != 0)) {
      throw new IllegalArgumentException("next row seq " + nextRowSeq + " needs a cursor commit ts (got "
          + cursorCommitTs + ")");
    }
  }

  /** Everything up to and including the transaction at {@code ts}. */
  public static Checkpoint at(long ts) {
    return new Checkpoint(ts, 0, 0);
  }

  /** Everything before the transaction at {@code commitTs}, and its rows with row seq {@code < nextRowSeq}. */
  public static Checkpoint inside(long commitTs, long nextRowSeq) {
    if (commitTs <= 0) {
      throw new IllegalArgumentException("a cursor needs a positive commit ts, got " + commitTs);
    }
    return nextRowSeq == 0 ? at(commitTs - 1) : new Checkpoint(commitTs - 1, commitTs, nextRowSeq);
  }

  /** Whether this checkpoint is inside a transaction delivered in parts. */
  public boolean hasCursor() {
    return cursorCommitTs != 0;
  }

  /** Whether the row {@code rowSeq} of the transaction at {@code commitTs} is covered (already applied). */
  public boolean covers(long commitTs, long rowSeq) {
    return commitTs <= ts || (commitTs == cursorCommitTs && rowSeq < nextRowSeq);
  }

  /** Whether the whole transaction at {@code commitTs} is covered. */
  public boolean coversAll(long commitTs) {
    return commitTs <= ts;
  }

  /** The later of the two. */
  public Checkpoint max(Checkpoint other) {
    return compareTo(other) >= 0 ? this : other;
  }

  @Override
  public int compareTo(Checkpoint o) {
    int c = Long.compare(ts, o.ts);
    if (c != 0) {
      return c;
    }
    return Long.compare(hasCursor() ? nextRowSeq : 0, o.hasCursor() ? o.nextRowSeq : 0);
  }

  /**
   * Reads the text {@link #toString()} writes ("123", or "123+(124#5)" with a cursor), for a checkpoint saved in a
   * file or a column.
   *
   * @throws IllegalArgumentException naming the text when it is not a checkpoint
   */
  public static Checkpoint parse(String text) {
    String t = text == null ? "" : text.strip();
    try {
      int plus = t.indexOf("+(");
      if (plus < 0) {
        return at(Long.parseLong(t));
      }
      int hash = t.indexOf('#', plus);
      if (hash < 0 || !t.endsWith(")")) {
        throw new IllegalArgumentException("a checkpoint is \"ts\" or \"ts+(commitTs#nextRowSeq)\", got \"" + t + "\"");
      }
      return new Checkpoint(Long.parseLong(t.substring(0, plus)), Long.parseLong(t.substring(plus + 2, hash)),
          Long.parseLong(t.substring(hash + 1, t.length() - 1)));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("a checkpoint is \"ts\" or \"ts+(commitTs#nextRowSeq)\", got \"" + t + "\"", e);
    }
  }

  /** "123", or "123+(124#5)" with a cursor: the text {@link #parse} reads. */
  @Override
  public String toString() {
    return hasCursor() ? ts + "+(" + cursorCommitTs + "#" + nextRowSeq + ")" : Long.toString(ts);
  }
}
