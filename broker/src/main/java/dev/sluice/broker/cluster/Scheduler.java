package dev.sluice.broker.cluster;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's work: while this node holds the coordinator role, it places every hosted
 * changefeed on a serving member, replaces a lost owner at once with a new fencing token, moves the
 * changefeeds of a draining member, and evens out the load one move at a time. Each round observes
 * ({@link SchedulingRound}), decides ({@link AssignmentTransitions}) and writes the assignments.
 * On every node; idle unless the node is the coordinator.
 *
 * <p><b>Tokens after a whole-cluster restart.</b> The CP subsystem keeps nothing on disk, so its token
 * counter starts again at zero. Before its first round a new coordinator waits until every live member
 * has published its info and raises the counter above every token any of them persisted (and any
 * token a sink showed them), so no new owner gets a token a sink already saw.
 *
 * <p>Concurrency: rounds run on one thread ({@code sluice-cluster-scheduler}), periodically and when
 * {@link #trigger()} is called; they never overlap.
 *
 * <pre>{@code
 * Scheduler s = Scheduler.start(config, membership, coordinator, assignments, changefeeds, floor, clock, registry);
 * s.trigger();   // a member or a changefeed changed
 * }</pre>
 */
public final class Scheduler implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Scheduler.class);

  private final String nodeId;
  private final Membership membership;
  private final Coordinator coordinator;
  private final Assignments assignments;
  private final Supplier<Collection<PlacedChangefeed>> changefeeds;
  private final TokenFloor floor;
  private final LongSupplier nowMs;
  private final long moveTimeoutMs;
  private final MeterRegistry registry;
  private final ScheduledExecutorService thread;
  private final AtomicBoolean pending = new AtomicBoolean();
  /** The coordinator term the floor was raised for (scheduler thread only). */
  private boolean floorRaised;

  private Scheduler(ClusterConfig config, Membership membership, Coordinator coordinator, Assignments assignments,
      Supplier<Collection<PlacedChangefeed>> changefeeds, TokenFloor floor, LongSupplier nowMs, MeterRegistry registry) {
    this.nodeId = membership.localNodeId();
    this.membership = membership;
    this.coordinator = coordinator;
    this.assignments = assignments;
    this.changefeeds = changefeeds;
    this.floor = floor;
    this.nowMs = nowMs;
    this.moveTimeoutMs = config.moveTimeout().toMillis();
    this.registry = registry;
    this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "sluice-cluster-scheduler");
      t.setDaemon(true);
      return t;
    });
  }

  /** Starts the periodic rounds (every publish interval) and reacts to member and coordinator changes. */
  public static Scheduler start(ClusterConfig config, Membership membership, Coordinator coordinator,
      Assignments assignments, Supplier<Collection<PlacedChangefeed>> changefeeds, TokenFloor floor, LongSupplier nowMs,
      MeterRegistry registry) {
    Scheduler s = new Scheduler(config, membership, coordinator, assignments, changefeeds, floor, nowMs, registry);
    long every = config.publishInterval().toMillis();
    s.thread.scheduleWithFixedDelay(s::round, every, every, TimeUnit.MILLISECONDS);
    membership.onChange(s::trigger);
    coordinator.onChange(s::trigger);
    assignments.onChange(id -> s.trigger());
    return s;
  }

  /** Asks for a round soon (coalesced). */
  public void trigger() {
    if (pending.compareAndSet(false, true)) {
      try {
        thread.execute(this::round);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        pending.set(false);   // closing
      }
    }
  }

  private void round() {
    pending.set(false);
    try {
      if (!coordinator.isLocal()) {
        floorRaised = false;
        return;
      }
      if (!floorRaised) {
        if (!membership.allPublished()) {
          return;   // a member's persisted token floor is not known yet
        }
        raiseFloor();
        floorRaised = true;
      }
      SchedulingRound round = new SchedulingRound(changefeeds.get(), assignments.all(), membership.members(),
          nowMs.getAsLong(), moveTimeoutMs);
      long fenced = round.highestFencedToken();
      if (fenced > 0) {
        coordinator.raiseFloor(fenced);
      }
      for (SchedulingRound.Decision d : round.decisions()) {
        if (!coordinator.isLocal()) {
          return;
        }
        execute(round, d);
      }
    } catch (RuntimeException e) {
      log.atWarn().addKeyValue("nodeId", nodeId).setCause(e).log("scheduling round failed; the next one retries");
    }
  }

  private void raiseFloor() {
    long max = floor.value();
    for (MemberInfo m : membership.members()) {
      max = Math.max(max, m.tokenFloor());
    }
    for (Assignment a : assignments.all().values()) {
      max = Math.max(max, a.token());
    }
    coordinator.raiseFloor(max);
    log.atInfo().addKeyValue("nodeId", nodeId).addKeyValue("tokenFloor", max)
        .log("coordinator raised the fencing token counter above every token the members have seen");
  }

  private void execute(SchedulingRound round, SchedulingRound.Decision d) {
    AssignmentTransition t = AssignmentTransitions.apply(d.state(), d.input());
    if (!t.changes()) {
      return;
    }
    Assignment current = d.current();
    String owner = current == null ? null : current.nodeId();
    String target = current == null ? null : current.target();
    long token = current == null ? 0 : current.token();
    long now = nowMs.getAsLong();
    for (AssignmentEffect effect : t.effects()) {
      switch (effect) {
        case PICK_OWNER -> {
          Optional<String> picked = round.pickOwner();
          if (picked.isEmpty()) {
            return;   // no serving member: the next round tries again
          }
          owner = picked.get();
        }
        case PICK_TARGET -> {
          Optional<String> picked = round.pickTarget(owner);
          if (picked.isEmpty()) {
            return;
          }
          target = picked.get();
        }
        case PROMOTE_TARGET -> {
          // the target left too: any serving member takes it
          Optional<String> next = round.isServing(target) ? Optional.of(target) : round.pickOwner();
          if (next.isEmpty()) {
            return;
          }
          owner = next.get();
          target = null;
        }
        case ISSUE_TOKEN -> {
          token = coordinator.nextToken();
          floor.observe(token);
        }
        case WRITE -> assignments.put(t.next() == AssignmentState.MOVING
            ? new Assignment(d.changefeedId(), AssignmentState.MOVING, owner, token, target, now)
            : Assignment.assigned(d.changefeedId(), owner, token, now));
        case DELETE -> assignments.remove(d.changefeedId());
      }
    }
    if (d.input() != AssignmentInput.PLACE && d.input() != AssignmentInput.REMOVED) {
      Counter.builder("sluice.cluster.reassignments").tag("reason", d.input().name().toLowerCase())
          .description("assignment changes of hosted changefeeds other than first placements and removals")
          .register(registry).increment();
    }
    log.atInfo().addKeyValue("nodeId", nodeId).addKeyValue("changefeedId", d.changefeedId())
        .addKeyValue("input", d.input()).addKeyValue("from", d.state()).addKeyValue("to", t.next())
        .addKeyValue("owner", owner).addKeyValue("target", target).addKeyValue("token", token)
        .log("assignment transition");
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
