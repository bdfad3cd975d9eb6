package dev.sluice.dispatcher.collector;

import dev.sluice.dispatcher.BrokerAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Which broker to connect to next and how long to wait first. Members learned from GetTopology join
 * the configured addresses; every reconnect moves on to the next member, so a dead broker is left
 * for another one when there is one. Delays grow exponentially from the minimum to the maximum with
 * ±20% jitter and start over once a stream is welcomed. Used on the collector's context only.
 */
final class Failover {

  private final List<BrokerAddress> members = new ArrayList<>();
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
    index = (index + 1) % members.size();
    return members.get(index);
  }

  /** Adds members named by GetTopology; known ones keep their place. */
  void learn(List<BrokerAddress> addresses) {
    for (BrokerAddress a : addresses) {
      if (!members.contains(a)) {
        members.add(a);
      }
    }
  }

  List<BrokerAddress> members() {
    return List.copyOf(members);
  }

  /** The delay before the next connection attempt; grows until a stream is welcomed. */
  long nextDelayMs() {
    return delayMs(attempt++);
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
