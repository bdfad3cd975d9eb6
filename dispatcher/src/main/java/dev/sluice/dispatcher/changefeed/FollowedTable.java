package dev.sluice.dispatcher.changefeed;

import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.SubscriptionHandle;
import java.util.ArrayDeque;

/**
 * One table a changefeed knows. The applier thread owns every field but {@link #queue},
 * {@link #receivedThrough}, {@link #accepting} and {@link #generation}, which the {@link Inbox}'s lock
 * guards (its listener fills them).
 */
final class FollowedTable {

  final long tableId;
  /** A listing at a ts above this must name the table unless it was dropped (it existed from here on). */
  final long existsFromTs;
  String name;
  SubscriptionHandle handle;
  Checkpoint applied;
  long resolvedTs;
  long goneAtTs = -1;
  ChangefeedStatus.TablePhase phase = ChangefeedStatus.TablePhase.FOLLOWING;
  /** Shown in the status: why held or ended, or what is missing downstream. */
  String note;
  /** While held: the table version it was held at; a later one (its fix) follows it again. */
  long heldVersion;
  long heldAtTs;

  // guarded by the inbox lock
  final ArrayDeque<Entry> queue = new ArrayDeque<>();
  long receivedThrough;
  boolean accepting = true;
  /** Which subscription's listener may put: one of a closed subscription may still be delivering. */
  int generation;

  FollowedTable(long tableId, String name, Checkpoint applied, long existsFromTs) {
    this.tableId = tableId;
    this.name = name;
    this.applied = applied;
    this.existsFromTs = existsFromTs;
    this.receivedThrough = applied.ts();
  }

  /** Whether it is followed (neither held nor ended): it counts for the changefeed checkpoint. */
  boolean live() {
    return phase == ChangefeedStatus.TablePhase.FOLLOWING;
  }

  @Override
  public String toString() {
    return name + "(" + tableId + ")";
  }
}
