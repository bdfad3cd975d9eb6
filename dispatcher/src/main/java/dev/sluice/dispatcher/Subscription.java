package dev.sluice.dispatcher;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.TableSpan;
import dev.sluice.api.v1.RowOp;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * What to subscribe to: a span (or a whole table by name, resolved with GetTableSchema at the start
 * ts), from an exclusive start ts, within a changefeed. Immutable; each {@code with}-style method
 * returns a copy.
 *
 * <pre>{@code
 * Subscription s = Subscription.table("public.orders").from(startTs).changefeed("orders-to-warehouse");
 * Subscription t = Subscription.span(TableSpan.wholeTable(16384)).from(0).ignoreOps(RowOp.ROW_OP_DELETE);
 * }</pre>
 *
 * @param span              the span, or null when {@code tableName} is given
 * @param tableName         "schema.table", or null when {@code span} is given
 * @param startTs           exclusive: changes with commit ts {@code > startTs} are delivered
 * @param changefeedId      the changefeed this subscription belongs to (credit is shared per changefeed);
 *                          null means the collector id
 * @param dispatcherId      the dispatcher id to use; null means a random one
 * @param ignoredOps        row operations the broker should not send (needs the event-filter feature)
 * @param syncPointInterval sync point interval, or null for none (needs the sync-point feature)
 */
public record Subscription(TableSpan span, String tableName, long startTs, String changefeedId,
    DispatcherId dispatcherId, Set<RowOp> ignoredOps, Duration syncPointInterval) {

  public Subscription {
    if ((span == null) == (tableName == null)) {
      throw new IllegalArgumentException("a subscription names either a span or a table, got span=" + span
          + ", table=" + tableName);
    }
    if (tableName != null && !tableName.matches("[^.\\s]+\\.[^.\\s]+")) {
      throw new IllegalArgumentException("table must be \"schema.table\", got \"" + tableName + "\"");
    }
    if (startTs < 0) {
      throw new IllegalArgumentException("startTs must be >= 0, got " + startTs);
    }
    if (changefeedId != null && changefeedId.isBlank()) {
      throw new IllegalArgumentException("changefeedId must not be blank");
    }
    ignoredOps = ignoredOps == null || ignoredOps.isEmpty() ? Set.of() : Set.copyOf(ignoredOps);
    if (ignoredOps.contains(RowOp.ROW_OP_UNSPECIFIED) || ignoredOps.contains(RowOp.UNRECOGNIZED)) {
      throw new IllegalArgumentException("ignoredOps may hold INSERT, UPDATE, DELETE only, got " + ignoredOps);
    }
    if (syncPointInterval != null && syncPointInterval.toSeconds() < 1) {
      throw new IllegalArgumentException("syncPointInterval must be at least 1 s, got " + syncPointInterval);
    }
  }

  /** A subscription to {@code span} from ts 0. */
  public static Subscription span(TableSpan span) {
    return new Subscription(span, null, 0, null, null, Set.of(), null);
  }

  /** A subscription to the whole table {@code "schema.table"} from ts 0. */
  public static Subscription table(String qualifiedName) {
    return new Subscription(null, qualifiedName, 0, null, null, Set.of(), null);
  }

  /** From {@code startTs}, exclusive. */
  public Subscription from(long startTs) {
    return new Subscription(span, tableName, startTs, changefeedId, dispatcherId, ignoredOps, syncPointInterval);
  }

  public Subscription changefeed(String id) {
    return new Subscription(span, tableName, startTs, id, dispatcherId, ignoredOps, syncPointInterval);
  }

  public Subscription dispatcherId(DispatcherId id) {
    return new Subscription(span, tableName, startTs, changefeedId, id, ignoredOps, syncPointInterval);
  }

  public Subscription ignoreOps(RowOp... ops) {
    Set<RowOp> set = ops.length == 0 ? Set.of() : EnumSet.of(ops[0], ops);
    return new Subscription(span, tableName, startTs, changefeedId, dispatcherId, set, syncPointInterval);
  }

  public Subscription syncPoints(Duration interval) {
    return new Subscription(span, tableName, startTs, changefeedId, dispatcherId, ignoredOps, interval);
  }

  /** The span when given directly. */
  public Optional<TableSpan> spanIfKnown() {
    return Optional.ofNullable(span);
  }

  /** What the subscription is to, for messages. */
  public String target() {
    return span != null ? "span " + span : "table " + tableName;
  }
}
