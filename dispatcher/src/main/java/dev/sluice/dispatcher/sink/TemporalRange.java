package dev.sluice.dispatcher.sink;

import dev.sluice.api.v1.ColumnInfo;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.Value;
import dev.sluice.dispatcher.RowImage;
import java.sql.SQLException;

/**
 * Refuses dates and timestamps a MySQL/MariaDB {@code DATE} or {@code DATETIME} cannot hold, before they
 * are bound: PostgreSQL's {@code infinity} and {@code -infinity}, BC values and years past 9999. Those
 * targets store years 1 to 9999 only (MariaDB takes year 0 too, as a placeholder, and clamps or zeroes
 * what it cannot hold outside strict mode), so such a value would be stored changed or refused with a
 * message that names neither the table nor the column. Arrays are stored as JSON there and keep every
 * value as text, so only scalar columns are checked. Stateless.
 *
 * <pre>{@code
 * TemporalRange.check("`app`.`events`", info, row.after(), false);   // SQL state 22008 when out of range
 * }</pre>
 */
final class TemporalRange {

  private TemporalRange() {}

  /**
   * @param target   the quoted target table, for the message
   * @param keysOnly check the key columns only (the image of a DELETE binds nothing else)
   * @throws SQLException with SQL state 22008 (datetime field overflow) naming the table, column and value
   */
  static void check(String target, TableInfo info, RowImage image, boolean keysOnly) throws SQLException {
    for (int i = 0; i < image.size() && i < info.getColumnsCount(); i++) {
      Value v = image.value(i);
      if ((v.hasTimestampValue() || v.hasDateValue()) && !ValueText.inCommonEra(v)) {
        ColumnInfo c = info.getColumns(i);
        if (keysOnly && !info.getPrimaryKeyList().contains(c.getName())) {
          continue;
        }
        String text = v.hasDateValue() ? ValueText.pgDate(v.getDateValue()) : ValueText.pgTimestamp(v.getTimestampValue());
        throw new SQLException("value '" + text + "' of column " + c.getName() + " (" + c.getSourceType() + ") of "
            + target + " cannot be stored in a MySQL/MariaDB " + (v.hasDateValue() ? "DATE" : "DATETIME")
            + ", which holds years 1 to 9999 and no infinity; change the value upstream, leave the table out of "
            + "the changefeed, or replicate it into PostgreSQL, which holds it exactly", "22008");
      }
    }
  }
}
