package dev.sluice.dispatcher.sink;

import dev.sluice.dispatcher.DdlChange;
import dev.sluice.dispatcher.Transaction;
import java.util.Objects;

/**
 * One step of what {@link Sink#applyInOrder} applies: the rows of one table in one upstream transaction
 * (or a part of them), or a schema change, in the order the upstream made them.
 *
 * <pre>{@code
 * sink.applyInOrder(List.of(new SinkChange.Schema(createParent), new SinkChange.Rows(parentRows),
 *     new SinkChange.Rows(childRows)), true, commitTs);
 * }</pre>
 */
public sealed interface SinkChange {

  /** Commit ts of the upstream transaction the step belongs to. */
  long commitTs();

  /** Rows of one table. */
  record Rows(Transaction transaction) implements SinkChange {
    /** The transaction is required. */
    public Rows {
      Objects.requireNonNull(transaction, "transaction");
    }

    @Override
    public long commitTs() {
      return transaction.commitTs();
    }
  }

  /** A schema change. */
  record Schema(DdlChange ddl) implements SinkChange {
    /** The DDL is required. */
    public Schema {
      Objects.requireNonNull(ddl, "ddl");
    }

    @Override
    public long commitTs() {
      return ddl.commitTs();
    }
  }
}
