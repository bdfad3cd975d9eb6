package dev.sluice.broker.cluster;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.cp.CPSubsystem;
import com.hazelcast.cp.IAtomicLong;
import com.hazelcast.cp.lock.FencedLock;
import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.TransientException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator election over the CP subsystem: one thread ({@code sluice-coordinator-lock}) waits
 * for the CP subsystem to form, then for the {@code FencedLock}; once it holds it, it confirms the
 * lock every 500 ms. This node is the coordinator while the last confirmation is younger than the CP
 * session TTL: a node cut off from the CP majority stops claiming the role within that time (and
 * could not hand out tokens anyway: they come from a CP counter that needs the majority).
 *
 * <p>When a holder dies, its lock is released when its CP session is closed: at once by the survivors
 * when the cluster removes the member ({@link CpMembership}), or when the session's TTL runs out.
 *
 * <p>Concurrency: a FencedLock belongs to the thread that took it, so every lock call runs on the
 * election thread; the role's state is published through volatile fields.
 */
final class HazelcastCoordinator implements Coordinator, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(HazelcastCoordinator.class);
  private static final long CONFIRM_EVERY_MS = 500;
  private static final long CP_CALL_TIMEOUT_MS = 5_000;

  private final HazelcastInstance hz;
  private final String nodeId;
  private final int cpMemberCount;
  private final long leaseNanos;
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  private final CountDownLatch closed = new CountDownLatch(1);
  private final Thread thread;
  private volatile long lockFence;
  private volatile long confirmedAtNanos;
  private volatile String detail = "joining";
  private volatile CoordinatorStatus.Phase phase = CoordinatorStatus.Phase.NO_QUORUM;
  private volatile boolean local;

  HazelcastCoordinator(HazelcastInstance hz, String nodeId, int cpMemberCount, long leaseMs) {
    this.hz = hz;
    this.nodeId = nodeId;
    this.cpMemberCount = cpMemberCount;
    this.leaseNanos = TimeUnit.MILLISECONDS.toNanos(leaseMs);
    this.thread = new Thread(this::campaign, "sluice-coordinator-lock");
    this.thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  private void campaign() {
    CPSubsystem cp = hz.getCPSubsystem();
    while (closed.getCount() > 0) {
      try {
        if (!cp.getCPSubsystemManagementService().isDiscoveryCompleted()) {
          noQuorum("the CP subsystem forms once " + cpMemberCount + " members have joined; "
              + hz.getCluster().getMembers().size() + " have: changefeeds are not scheduled until then");
          pause(CONFIRM_EVERY_MS);
          continue;
        }
        if (phase == CoordinatorStatus.Phase.NO_QUORUM) {
          follow("waiting for the coordinator lock");
        }
        FencedLock lock = cp.getLock(HazelcastSettings.COORDINATOR_LOCK);
        long fence = lock.tryLockAndGetFence(2, TimeUnit.SECONDS);
        if (fence == FencedLock.INVALID_FENCE) {
          follow("another member holds the coordinator lock");
          continue;
        }
        elected(fence);
        while (closed.getCount() > 0 && lock.isLockedByCurrentThread()) {
          confirmedAtNanos = System.nanoTime();
          pause(CONFIRM_EVERY_MS);
        }
        if (closed.getCount() == 0) {
          unlockQuietly(lock);
        }
        stepDown("the coordinator lock is no longer held by this node");
      } catch (RuntimeException e) {
        stepDown("the CP subsystem did not answer (" + e.getClass().getSimpleName() + ": " + e.getMessage()
            + "); is a majority of its " + cpMemberCount + " members up?");
        phase = CoordinatorStatus.Phase.NO_QUORUM;
        pause(CONFIRM_EVERY_MS);
      }
    }
  }

  private void elected(long fence) {
    lockFence = fence;
    confirmedAtNanos = System.nanoTime();
    local = true;
    phase = CoordinatorStatus.Phase.LOCAL;
    detail = "this node holds the coordinator lock (fence " + fence + ")";
    log.atInfo().addKeyValue("nodeId", nodeId).addKeyValue("lockFence", fence).log("elected coordinator");
    fire();
  }

  private void stepDown(String why) {
    boolean was = local;
    local = false;
    lockFence = 0;
    phase = CoordinatorStatus.Phase.FOLLOWER;
    detail = why;
    if (was) {
      log.atWarn().addKeyValue("nodeId", nodeId).log("no longer coordinator: {}", why);
      fire();
    }
  }

  private void follow(String why) {
    phase = CoordinatorStatus.Phase.FOLLOWER;
    detail = why;
  }

  private void noQuorum(String why) {
    phase = CoordinatorStatus.Phase.NO_QUORUM;
    detail = why;
  }

  private static void unlockQuietly(FencedLock lock) {
    try {
      lock.unlock();
    } catch (RuntimeException e) {
      // the session is gone already: so is the lock
    }
  }

  private void pause(long ms) {
    try {
      closed.await(ms, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public boolean isLocal() {
    return local && System.nanoTime() - confirmedAtNanos < leaseNanos;
  }

  @Override
  public long nextToken() {
    IAtomicLong counter = hz.getCPSubsystem().getAtomicLong(HazelcastSettings.TOKEN_COUNTER);
    return cpCall(() -> counter.incrementAndGetAsync().toCompletableFuture().get(CP_CALL_TIMEOUT_MS,
        TimeUnit.MILLISECONDS), "take a fencing token");
  }

  @Override
  public void raiseFloor(long floor) {
    IAtomicLong counter = hz.getCPSubsystem().getAtomicLong(HazelcastSettings.TOKEN_COUNTER);
    while (true) {
      long current = cpCall(() -> counter.getAsync().toCompletableFuture().get(CP_CALL_TIMEOUT_MS,
          TimeUnit.MILLISECONDS), "read the fencing token counter");
      if (current >= floor) {
        return;
      }
      boolean set = cpCall(() -> counter.compareAndSetAsync(current, floor).toCompletableFuture()
          .get(CP_CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS), "raise the fencing token counter");
      if (set) {
        log.atInfo().addKeyValue("nodeId", nodeId).addKeyValue("from", current).addKeyValue("to", floor)
            .log("fencing token counter raised");
        return;
      }
    }
  }

  private interface CpCall<T> {
    T call() throws InterruptedException, ExecutionException, TimeoutException;
  }

  private static <T> T cpCall(CpCall<T> call, String what) {
    try {
      return call.call();
    } catch (ExecutionException | TimeoutException e) {
      throw new TransientException(ErrorCode.NO_QUORUM, "could not " + what + " from the CP subsystem within "
          + CP_CALL_TIMEOUT_MS + " ms: " + (e.getCause() == null ? e : e.getCause()), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TransientException(ErrorCode.SHUTTING_DOWN, "interrupted while trying to " + what, e);
    }
  }

  @Override
  public void onChange(Runnable listener) {
    listeners.add(listener);
  }

  private void fire() {
    for (Runnable l : listeners) {
      try {
        l.run();
      } catch (RuntimeException e) {
        log.atWarn().setCause(e).log("coordinator listener failed");
      }
    }
  }

  @Override
  public CoordinatorStatus status() {
    CoordinatorStatus.Phase p = isLocal() ? CoordinatorStatus.Phase.LOCAL
        : phase == CoordinatorStatus.Phase.LOCAL ? CoordinatorStatus.Phase.FOLLOWER : phase;
    return new CoordinatorStatus(p, detail, isLocal() ? lockFence : 0, 0);
  }

  /** Stops campaigning; the lock, if held, is released by the election thread. */
  @Override
  public void close() {
    closed.countDown();
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    local = false;
  }
}
