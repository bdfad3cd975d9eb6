package dev.sluice.broker.control;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The byte credit one changefeed has on one collector stream, shared by its dispatchers across
 * data-plane instances: {@code allowed = available - (sent - received)}, where available and received
 * come from the collector's last report and sent counts what the broker sent since the stream opened.
 * Until the first report the changefeed is not limited (dispatcher credits still are).
 */
public final class ChangefeedCredit {

  private final AtomicLong sent = new AtomicLong();
  private volatile long available = -1; // -1: never reported
  private volatile long received;

  /** Applies a report from the collector. */
  public void report(long availableBytes, long receivedBytes) {
    this.received = receivedBytes;
    this.available = availableBytes;
  }

  /** Bytes that may still be sent; {@link Long#MAX_VALUE} when never reported. */
  public long allowed() {
    long a = available;
    if (a < 0) {
      return Long.MAX_VALUE;
    }
    return Math.max(0, a - (sent.get() - received));
  }

  /** Counts bytes sent for this changefeed. */
  public void onSent(long bytes) {
    sent.addAndGet(bytes);
  }

  public boolean isReported() {
    return available >= 0;
  }
}
