package dev.sluice.broker.cluster;

/**
 * Where a member stands, as the cluster sees it. A node publishes STARTING, SERVING or DRAINING about
 * itself; UNREACHABLE is what the others see of a member that left without leaving cleanly.
 */
public enum MemberState {
  /** Joined, capture not resolved yet: collectors and changefeeds go elsewhere. */
  STARTING,
  /** Serves dispatchers and hosts changefeeds. */
  SERVING,
  /** Asked to drain: its changefeeds move away, its collectors are told to move; it may then stop. */
  DRAINING,
  /** Gone from the cluster (crashed, cut off) but not left cleanly; listed until it returns or expires. */
  UNREACHABLE;

  public dev.sluice.api.v1.MemberState toProto() {
    return switch (this) {
      case STARTING -> dev.sluice.api.v1.MemberState.MEMBER_STATE_STARTING;
      case SERVING -> dev.sluice.api.v1.MemberState.MEMBER_STATE_SERVING;
      case DRAINING -> dev.sluice.api.v1.MemberState.MEMBER_STATE_DRAINING;
      case UNREACHABLE -> dev.sluice.api.v1.MemberState.MEMBER_STATE_UNREACHABLE;
    };
  }
}
