package dev.sluice.dispatcher.changefeed;

import dev.sluice.dispatcher.DdlChange;
import java.util.ArrayList;
import java.util.List;

/**
 * Columns a schema change added with a default the target computes again ({@code now()},
 * {@code gen_random_uuid()}, ...: DdlEvent.volatile_default_columns): the rows the table had then get the
 * target's values, not the upstream's, which the log does not carry. Each becomes a
 * {@link ChangefeedStatus.Divergence} until the re-snapshot the changefeed starts for the table reads those
 * rows again (a keyless table cannot be re-read: its READ rows would be appended).
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
          + "log); rows written later are equal; a snapshot of the table reads the old rows again, which clears this"));
    }
    return out;
  }

  /** {@code d} for a table whose rows are not read again (no key, or not followed now). */
  static ChangefeedStatus.Divergence unread(ChangefeedStatus.Divergence d, boolean keyed) {
    String why = keyed ? "the table is not followed now" : "the table has no key (its READ rows would be appended)";
    return new ChangefeedStatus.Divergence(d.table(), d.column(), d.sinceTs(), d.reason().replace(
        "a snapshot of the table reads the old rows again, which clears this", "the rows are not read again: " + why));
  }
}
