package dev.sluice.broker.cluster;

import com.hazelcast.cluster.Address;
import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.cp.CPGroup;
import com.hazelcast.cp.CPMember;
import com.hazelcast.cp.CPSubsystemManagementService;
import com.hazelcast.cp.session.CPSession;
import com.hazelcast.cp.session.CPSessionManagementService;
import java.util.Collection;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the CP subsystem whole, which open-source Hazelcast leaves to the operator: it keeps no CP
 * state on disk, so a restarted node is a new member and a dead CP member stays in the Raft groups
 * (counting against their majority) until removed.
 *
 * <ul>
 *   <li>When the cluster removes a member, the oldest live member closes the member's CP sessions (so a
 *       dead coordinator's lock is free at once instead of after the session TTL; a cut-off one's too,
 *       which the fencing tokens make safe). It does not remove the member from the CP subsystem: a
 *       cut-off member that is still a CP member rejoins its Raft groups when the cut heals, while one
 *       removed meanwhile could not (its stale CP identity is refused until it restarts). Two of three
 *       CP members keep the majority meanwhile. On the minority side of a split these calls find no
 *       majority and fail, which is harmless.
 *   <li>A node that holds no CP identity while the CP member list still names one at its own address
 *       removes that one: it was this node's previous process (the address is this process's, so that
 *       process is gone). Only the node itself can tell, because a CP identity has its own UUID (a
 *       promotion draws a fresh one), not the cluster member's. A CP member whose node never comes back
 *       is removed by Hazelcast after {@code cpMissingMemberAutoRemoval}.
 *   <li>Every two seconds a node that is not a CP member promotes itself while the CP subsystem has
 *       fewer members than configured: a restarted node takes the place of the one it replaces (the
 *       same check removes the old identity, then promotes).
 *   <li>A node that finds itself removed from the CP subsystem while it still holds a CP identity (it was
 *       cut off longer than the auto-removal) says so in its log and status: it must be restarted to
 *       rejoin the CP subsystem; it serves dispatchers meanwhile.
 * </ul>
 *
 * <p>While only two of three CP members are up the majority holds: the coordinator works but one
 * more loss stops scheduling. So a rolling restart or a sequence of kills must wait until the
 * restarted node is a CP member again before the next one ({@code cp_members} in
 * {@code /api/v1/members}).
 */
final class CpMembership implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(CpMembership.class);
  private static final long CALL_TIMEOUT_S = 10;

  private final HazelcastInstance hz;
  private final String nodeId;
  private final int cpMemberCount;
  private final ScheduledExecutorService thread;
  private volatile boolean staleReported;
  /** Checks in a row that found this node's CP identity missing from the CP member list (check thread only). */
  private int uncountedChecks;
  private static final int STALE_AFTER_CHECKS = 15;
  private volatile int cpMembers;
  private volatile boolean localCpMember;

  CpMembership(HazelcastInstance hz, String nodeId, int cpMemberCount) {
    this.hz = hz;
    this.nodeId = nodeId;
    this.cpMemberCount = cpMemberCount;
    this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "sluice-cp-membership");
      t.setDaemon(true);
      return t;
    });
  }

  void start() {
    hz.getCluster().addMembershipListener(new MembershipListener() {
      @Override
      public void memberAdded(MembershipEvent e) {
        thread.execute(CpMembership.this::check);
      }

      @Override
      public void memberRemoved(MembershipEvent e) {
        Member gone = e.getMember();
        thread.execute(() -> onRemoved(gone));
      }
    });
    thread.scheduleWithFixedDelay(this::check, 2, 2, TimeUnit.SECONDS);
  }

  /** CP members known at the last check (0 before the CP subsystem formed). */
  int cpMembers() {
    return cpMembers;
  }

  boolean localCpMember() {
    return localCpMember;
  }

  private boolean oldest() {
    return hz.getCluster().getMembers().iterator().next().localMember();
  }

  private void onRemoved(Member gone) {
    if (!oldest() || !hz.getCPSubsystem().getCPSubsystemManagementService().isDiscoveryCompleted()
        || isLive(gone.getAddress())) {
      return;   // back already (a split that healed before this ran): its session is its own again
    }
    long started = System.nanoTime();
    try {
      CPSessionManagementService sessions = hz.getCPSubsystem().getCPSessionManagementService();
      for (CPSession s : sessions.getAllSessions(CPGroup.DEFAULT_GROUP_NAME).toCompletableFuture()
          .get(CALL_TIMEOUT_S, TimeUnit.SECONDS)) {
        if (gone.getAddress().equals(s.endpoint())) {
          boolean closed = sessions.forceCloseSession(CPGroup.DEFAULT_GROUP_NAME, s.id()).toCompletableFuture()
              .get(CALL_TIMEOUT_S, TimeUnit.SECONDS);
          log.atInfo().addKeyValue("nodeId", nodeId).addKeyValue("member", gone.getAddress())
              .addKeyValue("sessionId", s.id()).addKeyValue("closed", closed)
              .log("closed the CP session of a member the cluster removed (its locks are free)");
        }
      }
    } catch (Exception e) {
      log.atWarn().addKeyValue("nodeId", nodeId).addKeyValue("member", gone.getAddress())
          .addKeyValue("afterMs", (System.nanoTime() - started) / 1_000_000)
          .log("could not release the CP role of a removed member (no CP majority on this side?): {}", String.valueOf(e));
    }
  }

  private boolean isLive(Address address) {
    for (Member m : hz.getCluster().getMembers()) {
      if (m.getAddress().equals(address)) {
        return true;
      }
    }
    return false;
  }

  private void check() {
    CPSubsystemManagementService cp = hz.getCPSubsystem().getCPSubsystemManagementService();
    if (!cp.isDiscoveryCompleted()) {
      return;
    }
    try {
      Collection<CPMember> members = cp.getCPMembers().toCompletableFuture().get(CALL_TIMEOUT_S, TimeUnit.SECONDS);
      cpMembers = members.size();
      CPMember local = cp.getLocalCPMember();
      boolean uncounted = local != null && members.stream().noneMatch(m -> m.getUuid().equals(local.getUuid()));
      localCpMember = local != null && !uncounted;
      // a fresh promotion can take a few checks to show in the list: only a lasting gap is a stale identity
      uncountedChecks = uncounted ? uncountedChecks + 1 : 0;
      if (uncountedChecks >= STALE_AFTER_CHECKS && !staleReported) {
        staleReported = true;
        log.atError().addKeyValue("nodeId", nodeId).addKeyValue("cpMembers", members.size())
            .log("this node was removed from the CP subsystem while it was cut off from the cluster; restart it to"
                + " rejoin the CP subsystem (meanwhile it serves dispatchers and hosts only what it is assigned)");
      }
      if (local == null && removePreviousIdentity(members)) {
        members = cp.getCPMembers().toCompletableFuture().get(CALL_TIMEOUT_S, TimeUnit.SECONDS);
        cpMembers = members.size();
      }
      if (local == null && members.size() < cpMemberCount) {
        cp.promoteToCPMember().toCompletableFuture().get(CALL_TIMEOUT_S, TimeUnit.SECONDS);
        localCpMember = cp.getLocalCPMember() != null;
        log.atInfo().addKeyValue("nodeId", nodeId).addKeyValue("cpMembers", members.size() + 1)
            .log("promoted this node to the CP subsystem");
      }
    } catch (Exception e) {
      log.atDebug().addKeyValue("nodeId", nodeId).log("CP membership check failed: {}", String.valueOf(e));
    }
  }

  /**
   * Removes the CP identity listed at this node's own address, which this process does not hold: its
   * previous process (killed or stopped) held it. Returns whether it removed one.
   */
  private boolean removePreviousIdentity(Collection<CPMember> members) throws Exception {
    Address self = hz.getCluster().getLocalMember().getAddress();
    boolean removed = false;
    for (CPMember m : members) {
      if (m.getAddress().equals(self)) {
        long started = System.nanoTime();
        hz.getCPSubsystem().getCPSubsystemManagementService().removeCPMember(m.getUuid()).toCompletableFuture()
            .get(CALL_TIMEOUT_S, TimeUnit.SECONDS);
        removed = true;
        log.atInfo().addKeyValue("nodeId", nodeId).addKeyValue("member", self).addKeyValue("cpMemberUuid", m.getUuid())
            .addKeyValue("tookMs", (System.nanoTime() - started) / 1_000_000)
            .log("removed the CP identity this node's previous process held at its address; it is promoted next");
      }
    }
    return removed;
  }

  /** Whether this node holds a CP identity the CP subsystem no longer counts (it must restart to rejoin). */
  boolean staleCpIdentity() {
    return staleReported;
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
