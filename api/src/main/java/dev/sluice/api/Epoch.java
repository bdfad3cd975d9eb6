package dev.sluice.api;

/**
 * A dispatcher's stream generation. {@link #REGISTERED} (0) means registered, not streaming; every
 * RESET starts a strictly larger epoch, so an event or ack of an older epoch can be told apart and
 * dropped.
 *
 * <pre>{@code
 * Epoch e = Epoch.REGISTERED.next();   // 1
 * boolean stale = e.isAfter(Epoch.of(3)); // false
 * }</pre>
 *
 * @param value the epoch, {@code >= 0}
 */
public record Epoch(long value) implements Comparable<Epoch> {

  public static final Epoch REGISTERED = new Epoch(0);

  public Epoch {
    if (value < 0) {
      throw new IllegalArgumentException("epoch must be >= 0, got " + value);
    }
  }

  public static Epoch of(long value) {
    return new Epoch(value);
  }

  /** The epoch a RESET from this one uses. */
  public Epoch next() {
    return new Epoch(Math.addExact(value, 1));
  }

  public boolean isAfter(Epoch other) {
    return value > other.value;
  }

  @Override
  public int compareTo(Epoch other) {
    return Long.compare(value, other.value);
  }

  @Override
  public String toString() {
    return Long.toString(value);
  }
}
