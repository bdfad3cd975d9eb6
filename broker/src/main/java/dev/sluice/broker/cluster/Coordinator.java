package dev.sluice.broker.cluster;

/**
 * The coordinator role: held by one node of the cluster at a time (the holder of the CP subsystem's
 * {@code FencedLock}), which assigns hosted changefeeds to nodes. It hands out fencing tokens: every
 * token is above every token handed out before, by this or any earlier coordinator, so a sink can
 * refuse the writes of an owner that was replaced. A standalone node is always its own coordinator.
 *
 * <pre>{@code
 * if (coordinator.isLocal()) {
 *   long token = coordinator.nextToken();   // needs the CP quorum
 * }
 * }</pre>
 */
public interface Coordinator {

  /** Whether this node holds the role now (and has confirmed it within the CP session's lifetime). */
  boolean isLocal();

  /** A fresh fencing token, above every earlier one. Blocks briefly on the CP subsystem. */
  long nextToken();

  /** Raises the token counter to at least {@code floor}: after a whole-cluster restart it starts at zero. */
  void raiseFloor(long floor);

  /** Calls {@code listener} when this node gains or loses the role. */
  void onChange(Runnable listener);

  /** Where the election stands, for {@code /api/v1/members} and the logs. */
  CoordinatorStatus status();
}
