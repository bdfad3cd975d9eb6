package dev.sluice.dispatcher;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.TableSpan;
import dev.sluice.api.v1.RowOp;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What to subscribe to and from where: a whole table by name (resolved with GetTableSchema) or a span of
 * one, from a position that is the whole retained history ({@link #fromEarliest()}, the default), the
 * broker's present ({@link #fromNow()}), a commit ts ({@link #from(long)}) or a saved {@link Checkpoint},
 * cursor included ({@link #from(Checkpoint)}). Immutable; each builder method returns a copy.
 *
 * <pre>{@code
 * Subscription live = Subscription.table("public.orders").fromNow();
 * Subscription resumed = Subscription.table("public.orders").from(savedCheckpoint);
 * Subscription half = Subscription.span(new TableSpan(16384, 0, 1L << 31)).from(0).ignoreOps(RowOp.ROW_OP_DELETE);
 * Subscription u = Subscription.table("public.orders").fromNow().withSnapshot();   // existing rows first
 * }</pre>
 *
 * @param span              the span, or null when {@code tableName} is given
 * @param tableName         "schema.table", or null when {@code span} is given
 * @param start             exclusive: what is already applied; changes after it are delivered (a cursor inside a
 *                          transaction delivered in parts resumes after its last applied row)
 * @param startFromNow      start at the broker's resolved ts when the subscription starts ({@code start} is then
 *                          ignored until it is resolved)
 * @param creditGroup       the group whose subscriptions share one credit budget of
 *                          {@link ClientConfig#changefeedQueueBytes()} (sent as the wire's {@code changefeed_id});
 *                          null means the client's collector id
 * @param dispatcherId      the dispatcher id to use; null means a random one
 * @param ignoredOps        row operations the broker should not send (needs the event-filter feature)
 * @param syncPointInterval sync point interval, or null for none (needs the sync-point feature)
 * @param snapshot          where a snapshot of the span's existing rows starts, or null for changes only (needs
 *                          the snapshot and fragmented-txn features): its rows arrive as READ rows merged into
 *                          the changes, then {@link ChangeListener#onSnapshotComplete}
 */
public record Subscription(TableSpan span, String tableName, Checkpoint start, boolean startFromNow, String creditGroup,
    DispatcherId dispatcherId, Set<RowOp> ignoredOps, Duration syncPointInterval, SnapshotCursor snapshot) {

  /** Validates the components; every message names the component and the value. */
  public Subscription {
    if ((span == null) == (tableName == null)) {
      throw new IllegalArgumentException("a subscription names either a span or a table, got span=" + span
          + ", table=" + tableName);
    }
    // as the broker takes a name: a dot between two non-blank parts; spaces, dots and any case are part of a name
    if (tableName != null && !tableName.matches(".*[^.\\s].*\\..*[^.\\s].*")) {
      throw new IllegalArgumentException("table must be \"schema.table\" (names as created upstream,"
          + " case-sensitive), got \"" + tableName + "\"");
    }
    Objects.requireNonNull(start, "start");
    if (creditGroup != null && creditGroup.isBlank()) {
      throw new IllegalArgumentException("creditGroup must not be blank");
    }
    ignoredOps = ignoredOps == null || ignoredOps.isEmpty() ? Set.of() : Set.copyOf(ignoredOps);
    if (ignoredOps.contains(RowOp.ROW_OP_UNSPECIFIED) || ignoredOps.contains(RowOp.UNRECOGNIZED)
        || ignoredOps.contains(RowOp.ROW_OP_READ)) {
      throw new IllegalArgumentException("ignoredOps may hold INSERT, UPDATE, DELETE only, got " + ignoredOps);
    }
    if (syncPointInterval != null && syncPointInterval.toSeconds() < 1) {
      throw new IllegalArgumentException("syncPointInterval must be at least 1 s, got " + syncPointInterval);
    }
  }

  /** A subscription to {@code span} from the earliest retained change (ts 0). */
  public static Subscription span(TableSpan span) {
    return new Subscription(span, null, Checkpoint.at(0), false, null, null, Set.of(), null, null);
  }

  /** A subscription to the whole table {@code "schema.table"} from the earliest retained change (ts 0). */
  public static Subscription table(String qualifiedName) {
    return new Subscription(null, qualifiedName, Checkpoint.at(0), false, null, null, Set.of(), null, null);
  }

  /**
   * From the changes with commit ts above {@code startTs}: {@code startTs} is the last transaction already
   * applied (a {@link Transaction#commitTs()}, a {@link ChangeListener#onResolved} ts, a table's creation ts
   * minus one).
   */
  public Subscription from(long startTs) {
    if (startTs < 0) {
      throw new IllegalArgumentException("startTs must be >= 0, got " + startTs);
    }
    return from(Checkpoint.at(startTs));
  }

  /**
   * From a checkpoint you acknowledged and saved: changes after it are delivered, and when it has a cursor
   * (inside a transaction delivered in parts) that transaction continues after its last applied row.
   */
  public Subscription from(Checkpoint checkpoint) {
    return new Subscription(span, tableName, checkpoint, false, creditGroup, dispatcherId, ignoredOps,
        syncPointInterval, snapshot);
  }

  /**
   * From the broker's present: the first changes delivered are those committed after the broker's resolved ts
   * at the moment the subscription starts (Kafka's {@code auto.offset.reset=latest}). A restart of the client
   * should resume {@link #from(Checkpoint)} the checkpoint it saved instead.
   */
  public Subscription fromNow() {
    return new Subscription(span, tableName, Checkpoint.at(0), true, creditGroup, dispatcherId, ignoredOps,
        syncPointInterval, snapshot);
  }

  /**
   * From ts 0 (the default): the whole history while the broker still keeps it. Once the broker has collected
   * old events (after its {@code gcRetention}, 1 h by default, with no consumer holding them) ts 0 is below its
   * GC point and the subscription is refused with {@code START_TS_BELOW_GC}, whose message names the GC point to
   * start {@link #from(long)} instead; the client does not move the start up by itself.
   */
  public Subscription fromEarliest() {
    return from(Checkpoint.at(0));
  }

  /**
   * Puts this subscription into a credit group: subscriptions of one group share one budget of
   * {@link ClientConfig#changefeedQueueBytes()} undelivered bytes on top of each one's own queue, so a group of
   * many spans cannot hold more than that between them. Unrelated to the broker's hosted changefeeds, which use
   * their changefeed id as their group.
   */
  public Subscription creditGroup(String group) {
    return new Subscription(span, tableName, start, startFromNow, group, dispatcherId, ignoredOps, syncPointInterval, snapshot);
  }

  /** Uses {@code id} as the dispatcher id (for example to find it in the broker's logs); by default a random one. */
  public Subscription dispatcherId(DispatcherId id) {
    return new Subscription(span, tableName, start, startFromNow, creditGroup, id, ignoredOps, syncPointInterval, snapshot);
  }

  /** Asks the broker not to send row changes of these operations (needs the broker's event-filter feature). */
  public Subscription ignoreOps(RowOp... ops) {
    Set<RowOp> set = ops.length == 0 ? Set.of() : EnumSet.of(ops[0], ops);
    return new Subscription(span, tableName, start, startFromNow, creditGroup, dispatcherId, set, syncPointInterval, snapshot);
  }

  /** Asks for a {@link ChangeListener#onSyncPoint sync point} every {@code interval} of upstream commit time. */
  public Subscription syncPoints(Duration interval) {
    return new Subscription(span, tableName, start, startFromNow, creditGroup, dispatcherId, ignoredOps, interval, snapshot);
  }

  /**
   * With a snapshot of the span's existing rows from the start: they arrive as READ rows merged into the changes
   * after the start position, then {@link ChangeListener#onSnapshotComplete} (needs the broker's snapshot and
   * fragmented-txn features).
   */
  public Subscription withSnapshot() {
    return withSnapshot(SnapshotCursor.start());
  }

  /** With a snapshot continuing from {@code from} (the cursor a sink recorded), or none when null. */
  public Subscription withSnapshot(SnapshotCursor from) {
    return new Subscription(span, tableName, start, startFromNow, creditGroup, dispatcherId, ignoredOps,
        syncPointInterval, from);
  }

  /** The start ts: every transaction at or below it counts as applied (0 for {@link #fromNow()} until resolved). */
  public long startTs() {
    return start.ts();
  }

  /** The span when given directly. */
  public Optional<TableSpan> spanIfKnown() {
    return Optional.ofNullable(span);
  }

  /** What the subscription is to, for messages: "span 16384[0,4294967296)" or "table public.orders". */
  public String target() {
    return span != null ? "span " + span : "table " + tableName;
  }
}
