package dev.sluice.broker.cluster;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes this node's {@link MemberInfo} every interval (its servable range and lag move all the
 * time) and at once when asked (a state change, a changefeed adopted or released). On one thread,
 * {@code sluice-member-publisher}; a failed publish is retried at the next one.
 *
 * <pre>{@code
 * MemberPublisher p = MemberPublisher.start(membership, broker::memberInfo, Duration.ofMillis(500));
 * p.publishNow();
 * }</pre>
 */
public final class MemberPublisher implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(MemberPublisher.class);

  private final Membership membership;
  private final Supplier<MemberInfo> source;
  private final ScheduledExecutorService thread;
  private final AtomicBoolean pending = new AtomicBoolean();

  private MemberPublisher(Membership membership, Supplier<MemberInfo> source) {
    this.membership = membership;
    this.source = source;
    this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "sluice-member-publisher");
      t.setDaemon(true);
      return t;
    });
  }

  public static MemberPublisher start(Membership membership, Supplier<MemberInfo> source, Duration every) {
    MemberPublisher p = new MemberPublisher(membership, source);
    p.thread.scheduleWithFixedDelay(p::publish, 0, every.toMillis(), TimeUnit.MILLISECONDS);
    return p;
  }

  /** Publishes soon (coalesced). */
  public void publishNow() {
    if (pending.compareAndSet(false, true)) {
      try {
        thread.execute(this::publish);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        pending.set(false);
      }
    }
  }

  private void publish() {
    pending.set(false);
    try {
      membership.publish(source.get());
    } catch (RuntimeException e) {
      log.atDebug().addKeyValue("nodeId", membership.localNodeId()).log("member info not published: {}",
          String.valueOf(e));
    }
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
