package dev.sluice.dispatcher.changefeed;

import dev.sluice.dispatcher.DdlChange;
import java.util.ArrayList;
import java.util.List;

/**
 * Columns a schema change added with a default the target computes again ({@code now()},
 * {@code gen_random_uuid()}, ...: DdlEvent.volatile_default_columns): the rows the table had then get the
 * target's values, not the upstream's, which the log does not carry. Each becomes a
 * {@link ChangefeedStatus.Divergence} until the snapshot of issue #17 reads those rows again.
 */
final class VolatileDefaults {

  private VolatileDefaults() {}

  /** The columns of {@code ddl} added with a volatile default. */
  static List<String> columns(DdlChange ddl) {
    return ddl.volatileDefaultColumns();
  }

  /** The divergences {@code ddl} causes, once applied. */
  static List<ChangefeedStatus.Divergence> of(DdlChange ddl) {
    List<ChangefeedStatus.Divergence> out = new ArrayList<>();
    for (String column : columns(ddl)) {
      out.add(new ChangefeedStatus.Divergence(ddl.tableName(), column, ddl.commitTs(), "column " + column + " of "
          + ddl.tableName() + " was added at commit ts " + ddl.commitTs() + " with a default the target computed "
          + "again: the rows the table had then hold the target's values, not the upstream's (they are not in the "
          + "log); rows written later are equal; the snapshot of issue #17 will read the old rows again"));
    }
    return out;
  }
}
