package dev.sluice.dispatcher.collector;

import dev.sluice.api.v1.Member;
import dev.sluice.api.v1.MemberState;
import dev.sluice.api.v1.Topology;
import dev.sluice.dispatcher.BrokerAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Which broker to connect to next and how long to wait first. Members learned from GetTopology join
 * the configured addresses, with their state and servable range {@code [gc_ts, resolved_ts]}; every
 * reconnect moves on to the next member that is SERVING and still keeps the rows after the collector's
 * checkpoint, skipping a member that is DRAINING, STARTING, UNREACHABLE or collected them, so a dead or
 * draining broker is left for one that can resume the dispatchers. When no member qualifies it takes the
 * next one in turn (a broker that cannot serve says so, naming the members that can). Delays grow
 * exponentially from the minimum to the maximum with ±20% jitter and start over once a stream is
 * welcomed; the first move away from a member whose welcomed stream broke waits at most half the
 * minimum. Used on the collector's context only.
 */
final class Failover {

  /** What the last topology said of a member. */
  private record View(MemberState state, long servableFromTs) {}

  private final List<BrokerAddress> members = new ArrayList<>();
  private final Map<BrokerAddress, View> views = new HashMap<>();
  private final long minMs;
  private final long maxMs;
  private int index;
  private int attempt;

  Failover(List<BrokerAddress> configured, Duration min, Duration max) {
    for (BrokerAddress a : configured) {
      if (!members.contains(a)) {
        members.add(a);
      }
    }
    this.minMs = min.toMillis();
    this.maxMs = max.toMillis();
  }

  BrokerAddress current() {
    return members.get(index);
  }

  /** Moves to the next member (the same one when only one is known) and returns it. */
  BrokerAddress advance() {
    return advance(0);
  }

  /**
   * Moves to the next member that can resume dispatchers from {@code checkpointTs} (0: any serving one),
   * else to the next one in turn.
   */
  BrokerAddress advance(long checkpointTs) {
    int n = members.size();
    for (int step = 1; step <= n; step++) {
      int i = (index + step) % n;
      if (canServe(members.get(i), checkpointTs)) {
        index = i;
        return members.get(i);
      }
    }
    index = (index + 1) % n;
    return members.get(index);
  }

  private boolean canServe(BrokerAddress a, long checkpointTs) {
    View v = views.get(a);
    if (v == null) {
      return true;   // configured, not seen in a topology yet: worth a try
    }
    return v.state() == MemberState.MEMBER_STATE_SERVING && (checkpointTs == 0 || checkpointTs >= v.servableFromTs());
  }

  /** Adds members named by GetTopology; known ones keep their place, every one's state is updated. */
  void learn(Topology topology) {
    for (Member m : topology.getMembersList()) {
      if (m.getGrpcAddress().isEmpty()) {
        continue;
      }
      BrokerAddress a;
      try {
        a = BrokerAddress.parse(m.getGrpcAddress());
      } catch (IllegalArgumentException e) {
        continue;
      }
      views.put(a, new View(m.getState(), m.getGcTs()));
      if (!members.contains(a) && m.getState() != MemberState.MEMBER_STATE_UNREACHABLE) {
        members.add(a);
      }
    }
  }

  /** Adds members by address only (their state unknown). */
  void learn(List<BrokerAddress> addresses) {
    for (BrokerAddress a : addresses) {
      if (!members.contains(a)) {
        members.add(a);
      }
    }
  }

  /** {@code a} said it is draining: skip it until a topology says otherwise. */
  void draining(BrokerAddress a) {
    View v = views.get(a);
    views.put(a, new View(MemberState.MEMBER_STATE_DRAINING, v == null ? 0 : v.servableFromTs()));
  }

  List<BrokerAddress> members() {
    return List.copyOf(members);
  }

  /** The delay before the next connection attempt; grows until a stream is welcomed. */
  long nextDelayMs() {
    return delayMs(attempt++);
  }

  /**
   * The delay before moving to another member after a welcomed stream broke (its broker died or went away):
   * 0 to half the minimum delay, jittered so that the collectors of a dead member do not all arrive at the
   * same instant, but without the backoff meant for repeated failures.
   */
  long switchDelayMs() {
    return (long) (ThreadLocalRandom.current().nextDouble() * (minMs / 2.0));
  }

  /** A stream was welcomed: the next failure starts from the minimum delay again. */
  void welcomed() {
    attempt = 0;
  }

  /** The {@code n}-th (0-based) backoff delay, jittered. */
  long delayMs(int n) {
    double base = Math.min((double) maxMs, minMs * Math.pow(2, Math.min(n, 30)));
    double jitter = 0.8 + 0.4 * ThreadLocalRandom.current().nextDouble();
    return Math.max(1, (long) (base * jitter));
  }
}
