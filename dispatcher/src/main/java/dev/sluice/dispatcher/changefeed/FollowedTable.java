package dev.sluice.dispatcher.changefeed;

import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.SubscriptionHandle;
import dev.sluice.dispatcher.SnapshotOutcome;
import dev.sluice.dispatcher.sink.TableSnapshot;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

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
  /** The listing ts at which a followed table was found left out of the publication; -1 while it is in it. */
  long unpublishedAtTs = -1;
  /** Whether the table has a key (its READ rows upsert; a keyless table's are appended, so it is read once only). */
  boolean keyed = true;
  /** Its snapshot as this run knows it ({@code NONE}: none asked for). */
  TableSnapshot.State snapshotState = TableSnapshot.State.NONE;
  /** Why its snapshot failed or was cancelled, or what it re-reads. */
  String snapshotReason;
  /** The table's stream position when its current snapshot was asked for ({@link TableSnapshot#sinceTs()}). */
  long snapshotSinceTs;
  /** Changes to record in the sink's snapshot of the table once no target transaction is open, in order. */
  final List<UnaryOperator<TableSnapshot>> snapshotRecords = new ArrayList<>();
  /** The table's estimated rows, from the last chunk its listener got (0 unknown). */
  volatile long rowsEstimate;
  /** READ rows of its snapshot the sink applied, as last sampled. */
  long rowsDone;
  /** Where its snapshot continues in the sink, as last sampled (the start until the first sample). */
  dev.sluice.dispatcher.SnapshotCursor snapshotCursor = dev.sluice.dispatcher.SnapshotCursor.start();
  /** Rate samples: READ rows the sink held at {@link #sampleNanos}, and the rate they gave. */
  long sampleRows = -1;
  long sampleNanos;
  double rowsPerSecond;

  // guarded by the inbox lock
  /** How the snapshot ended, as the listener heard it, once the table is applied through {@link #outcomeAfterTs}. */
  SnapshotOutcome outcome;
  long outcomeAfterTs;

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
