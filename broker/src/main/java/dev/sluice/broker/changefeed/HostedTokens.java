package dev.sluice.broker.changefeed;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.TransientException;
import dev.sluice.dispatcher.sink.FencedOutException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Records which changefeeds this node hosts, each with the fencing token of its assignment. It also
 * keeps, per changefeed, the higher token a sink held when it refused this node
 * ({@link FencedOutException}), so a token at or below that one is not taken again. It counts those
 * refusals in {@code sluice.changefeed.fenced.out}.
 *
 * <p>Concurrency: changed, and read through {@link #of} and {@link #has}, on the supervisor's thread
 * only. {@link #listed}, {@link #hosting} and {@link #fencedOut} can be read on any thread (the
 * member info publisher, the assignment follower, the admin API).
 *
 * <pre>{@code
 * if (!tokens.refused("orders", 7)) tokens.host("orders", 7);
 * Long token = tokens.of("orders");   // 7; null once unhosted
 * }</pre>
 */
final class HostedTokens {

  /** Changefeed id to the token this node hosts it with (supervisor thread). */
  private final Map<String, Long> hosted = new HashMap<>();
  // the same entries as hosted, readable anywhere (the member info publisher)
  private final Map<String, Long> hostedView = new ConcurrentHashMap<>();
  private final Map<String, Long> fencedOut = new ConcurrentHashMap<>();
  private final Counter fencedOutCount;

  HostedTokens(MeterRegistry registry) {
    this.fencedOutCount = Counter.builder("sluice.changefeed.fenced.out")
        .description("runtimes stopped because their sink holds a newer owner's fencing token").register(registry);
  }

  /** The token this node hosts {@code id} with, or null when it does not host it (supervisor thread). */
  Long of(String id) {
    return hosted.get(id);
  }

  /** Whether this node hosts {@code id} (supervisor thread). */
  boolean has(String id) {
    return hosted.containsKey(id);
  }

  /** Hosts {@code id} with {@code token} from now on; a refusal of an older token is forgotten. */
  void host(String id, long token) {
    fencedOut.remove(id);
    hosted.put(id, token);
    hostedView.put(id, token);
  }

  /** Stops listing {@code id} as hosted here. */
  void unhost(String id) {
    hosted.remove(id);
    hostedView.remove(id);
  }

  /** Whether a sink of {@code id} already refused this node with a token at least {@code token}. */
  boolean refused(String id, long token) {
    Long refused = fencedOut.get(id);
    return refused != null && refused >= token;
  }

  /** {@code id}'s sink refused this node: it holds {@code heldToken}, a newer owner's. */
  void fencedOut(String id, long heldToken) {
    fencedOutCount.increment();
    fencedOut.put(id, heldToken);
  }

  /**
   * Refuses a request for {@code id} when this node does not host it (supervisor thread).
   *
   * @throws TransientException CHANGEFEED_MOVING
   */
  void requireHosted(String id) {
    if (!hosted.containsKey(id)) {
      throw new TransientException(ErrorCode.CHANGEFEED_MOVING, "changefeed \"" + id + "\" is not hosted on this"
          + " node (it is being placed or moving between nodes); retry shortly, or ask the node that hosts it");
    }
  }

  /** Whether this node lists {@code id} as hosted now (any thread). */
  boolean listed(String id) {
    return hostedView.containsKey(id);
  }

  /** Changefeed id to the token this node hosts it with (a copy, any thread). */
  Map<String, Long> hosting() {
    return Map.copyOf(hostedView);
  }

  /** Changefeed id to the higher token its sink held when it refused this node (a copy, any thread). */
  Map<String, Long> fencedOut() {
    return Map.copyOf(fencedOut);
  }
}
