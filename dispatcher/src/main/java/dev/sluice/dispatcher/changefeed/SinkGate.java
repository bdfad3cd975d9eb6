package dev.sluice.dispatcher.changefeed;

/**
 * Keeps {@link ChangefeedRuntime#close()} from interrupting the applier inside a sink call: an interrupt
 * there would break the call halfway (a file sink's channel closes on it), so close interrupts only
 * the waits between calls, and a call that starts after close does not start.
 */
final class SinkGate {

  private final Thread applier;
  private boolean applying;
  private boolean closed;

  SinkGate(Thread applier) {
    this.applier = applier;
  }

  /** Before a sink call; throws when the runtime is closing. */
  synchronized void enter() throws InterruptedException {
    if (closed) {
      throw new InterruptedException("the changefeed is closing");
    }
    Thread.interrupted();   // a stale interrupt must not reach the sink
    applying = true;
  }

  /** After the call. */
  synchronized void exit() {
    applying = false;
  }

  /** The runtime closes: the applier is interrupted unless a sink call runs (it stops after it). */
  synchronized void close() {
    closed = true;
    if (!applying) {
      applier.interrupt();
    }
  }
}
