package dev.sluice.broker.testing;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.broker.control.ChangefeedCredit;
import dev.sluice.broker.control.CollectorLink;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A stand-in for the broker's end of a collector stream, for plane tests that run without gRPC (the real
 * {@code CollectorConnection} needs an HTTP/2 stream; it is covered over sockets in the server package):
 * records what a plane hands the stream, and grants queue room only while {@link #room} is set.
 */
public final class RecordingLink implements CollectorLink {

  private final long id;
  private final Set<String> features;
  /** Whether {@link #tryReserve} grants room. */
  public volatile boolean room = true;
  /** Control messages (acks, Ready, Handshake), in the order handed over. */
  public final BlockingQueue<BrokerMessage> control = new LinkedBlockingQueue<>();
  /** Event batches handed over, per dispatcher. */
  public final Map<DispatcherId, Integer> events = new ConcurrentHashMap<>();
  /** The last watermark ts handed over, per dispatcher. */
  public final Map<DispatcherId, Long> resolved = new ConcurrentHashMap<>();
  private final Map<String, ChangefeedCredit> credits = new ConcurrentHashMap<>();
  /** Called with each changefeed id a plane asks the credit of (a plane about to scan for it). */
  public volatile Consumer<String> onCreditAsked = cf -> { };

  public RecordingLink(long id, Set<String> features) {
    this.id = id;
    this.features = Set.copyOf(features);
  }

  /** The next control message matching {@code p} within 10 s (earlier ones are skipped). */
  public BrokerMessage nextControl(Predicate<BrokerMessage> p) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (true) {
      BrokerMessage m = control.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      if (m == null) {
        throw new AssertionError("no matching control message within 10 s");
      }
      if (p.test(m)) {
        return m;
      }
    }
  }

  @Override
  public long id() {
    return id;
  }

  @Override
  public String collectorId() {
    return "recording-" + id;
  }

  @Override
  public Set<String> features() {
    return features;
  }

  @Override
  public dev.sluice.broker.security.Principal principal() {
    return dev.sluice.broker.security.Principal.ANONYMOUS;
  }

  @Override
  public void sendControl(BrokerMessage message) {
    control.add(message);
  }

  @Override
  public void sendHandshake(DispatcherId dispatcher, long epoch, BrokerMessage handshake) {
    control.add(handshake);
  }

  @Override
  public void fence(DispatcherId dispatcher, long epoch) {}

  @Override
  public void forget(DispatcherId dispatcher) {}

  @Override
  public void sendEvents(DispatcherId dispatcher, long epoch, byte[] encodedBrokerMessage) {
    events.merge(dispatcher, 1, Integer::sum);
  }

  @Override
  public void sendResolved(DispatcherId dispatcher, long epoch, long ts, long lastSeq) {
    resolved.put(dispatcher, ts);
  }

  @Override
  public boolean tryReserve(long bytes) {
    return room;
  }

  @Override
  public void reserve(long bytes) {}

  @Override
  public void release(long bytes) {}

  @Override
  public ChangefeedCredit changefeedCredit(String changefeedId) {
    onCreditAsked.accept(changefeedId);
    return credits.computeIfAbsent(changefeedId, k -> new ChangefeedCredit());
  }

  @Override
  public boolean isClosed() {
    return false;
  }
}
