package dev.sluice.broker.capture;

/**
 * The row seq numbers of one transaction: every row change and every DDL takes the next one when it
 * arrives, in the order the upstream made them, so that a DDL's number says which rows came before it.
 * Shared by the capture session (rows) and the schema tracker (DDL); capture thread only.
 *
 * <pre>{@code
 * sequence.restart();          // at Begin
 * long rowSeq = sequence.take();
 * }</pre>
 */
final class TxnSequence {

  private long next;

  /** A new transaction starts at 0. */
  void restart() {
    next = 0;
  }

  /** The next number; every call gives a new one. */
  long take() {
    return next++;
  }
}
