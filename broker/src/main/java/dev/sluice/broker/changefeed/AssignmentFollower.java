package dev.sluice.broker.changefeed;

import dev.sluice.broker.cluster.Assignment;
import dev.sluice.broker.cluster.AssignmentState;
import dev.sluice.broker.cluster.Assignments;
import dev.sluice.broker.cluster.TokenFloor;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes this node host exactly what the cluster's assignment table gives it: it adopts a changefeed
 * assigned to it (with the assignment's token, persisted first as the node's token floor), releases
 * one that moves away or that its node is asked to let go (MOVING), and releases whatever has no
 * assignment. Runs on any change of the table and every second (a healed split may merge without an
 * event for every entry).
 *
 * <pre>{@code
 * AssignmentFollower f = AssignmentFollower.start("node-1", assignments, supervisor, floor);
 * }</pre>
 */
public final class AssignmentFollower implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(AssignmentFollower.class);

  private final String nodeId;
  private final Assignments assignments;
  private final ChangefeedSupervisor supervisor;
  private final TokenFloor floor;
  private final ScheduledExecutorService thread;
  private final AtomicBoolean pending = new AtomicBoolean();

  private AssignmentFollower(String nodeId, Assignments assignments, ChangefeedSupervisor supervisor, TokenFloor floor) {
    this.nodeId = nodeId;
    this.assignments = assignments;
    this.supervisor = supervisor;
    this.floor = floor;
    this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "sluice-assignment-follower");
      t.setDaemon(true);
      return t;
    });
  }

  public static AssignmentFollower start(String nodeId, Assignments assignments, ChangefeedSupervisor supervisor,
      TokenFloor floor) {
    AssignmentFollower f = new AssignmentFollower(nodeId, assignments, supervisor, floor);
    assignments.onChange(id -> f.trigger());
    supervisor.onRecordChange(f::trigger);
    f.thread.scheduleWithFixedDelay(f::reconcile, 0, 1, TimeUnit.SECONDS);
    return f;
  }

  /** Asks for a reconcile soon (coalesced). */
  public void trigger() {
    if (pending.compareAndSet(false, true)) {
      try {
        thread.execute(this::reconcile);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        pending.set(false);
      }
    }
  }

  private void reconcile() {
    pending.set(false);
    try {
      Map<String, Assignment> all = assignments.all();
      for (Assignment a : all.values()) {
        boolean mine = a.nodeId().equals(nodeId);
        if (mine && a.state() == AssignmentState.ASSIGNED) {
          floor.observe(a.token());   // before anything writes with it
          supervisor.adopt(a.changefeedId(), a.token());
        } else if (supervisor.hosts(a.changefeedId())) {
          supervisor.release(a.changefeedId());
        }
      }
      for (String id : supervisor.hosting().keySet()) {
        if (!all.containsKey(id)) {
          supervisor.release(id);
        }
      }
    } catch (RuntimeException e) {
      log.atWarn().addKeyValue("nodeId", nodeId).setCause(e).log("following the assignments failed; retried in 1 s");
    }
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
