package dev.sluice.dispatcher.sink;

import dev.sluice.api.v1.ColumnInfo;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.Value;
import dev.sluice.dispatcher.RowImage;
import java.sql.SQLException;

/**
 * Refuses values a MySQL/MariaDB column cannot hold, before they are bound, with a message naming the table, the
 * column and the value:
 * <ul>
 *   <li>dates and timestamps a {@code DATE} or {@code DATETIME} cannot hold: PostgreSQL's {@code infinity} and
 *       {@code -infinity}, BC values and years past 9999. Those targets store years 1 to 9999 only (MariaDB takes
 *       year 0 too, as a placeholder, and clamps or zeroes what it cannot hold outside strict mode);</li>
 *   <li>floating-point {@code NaN}, {@code Infinity} and {@code -Infinity} (PostgreSQL {@code real} and
 *       {@code double precision} hold them), which a {@code FLOAT} or {@code DOUBLE} cannot: the driver writes them
 *       as bare words, which the server takes for column names ("Unknown column 'Infinity'").</li>
 * </ul>
 * Such a value would be stored changed or refused with a message that names neither the table nor the column.
 * Arrays are stored as JSON there and keep every value as text, so only scalar columns are checked. Stateless.
 *
 * <pre>{@code
 * MysqlValueRange.check("`app`.`events`", info, row.after(), false);   // SQL state 22008 or 22003 when out of range
 * }</pre>
 */
final class MysqlValueRange {

  private MysqlValueRange() {}

  /**
   * @param target   the quoted target table, for the message
   * @param keysOnly check the key columns only (the image of a DELETE binds nothing else)
   * @throws SQLException with SQL state 22008 (datetime field overflow) or 22003 (numeric value out of range)
   *     naming the table, column and value
   */
  static void check(String target, TableInfo info, RowImage image, boolean keysOnly) throws SQLException {
    for (int i = 0; i < image.size() && i < info.getColumnsCount(); i++) {
      Value v = image.value(i);
      boolean temporal = (v.hasTimestampValue() || v.hasDateValue()) && !ValueText.inCommonEra(v);
      boolean floating = v.hasDoubleValue() && !Double.isFinite(v.getDoubleValue());
      if (!temporal && !floating) {
        continue;
      }
      ColumnInfo c = info.getColumns(i);
      if (keysOnly && !info.getPrimaryKeyList().contains(c.getName())) {
        continue;
      }
      if (floating) {
        throw new SQLException("value '" + v.getDoubleValue() + "' of column " + c.getName() + " (" + c.getSourceType()
            + ") of " + target + " cannot be stored in a MySQL/MariaDB FLOAT or DOUBLE, which holds no NaN and no "
            + "infinity; change the value upstream, leave the table out of the changefeed, or replicate it into "
            + "PostgreSQL, which holds it exactly", "22003");
      }
      String text = v.hasDateValue() ? ValueText.pgDate(v.getDateValue()) : ValueText.pgTimestamp(v.getTimestampValue());
      throw new SQLException("value '" + text + "' of column " + c.getName() + " (" + c.getSourceType() + ") of "
          + target + " cannot be stored in a MySQL/MariaDB " + (v.hasDateValue() ? "DATE" : "DATETIME")
          + ", which holds years 1 to 9999 and no infinity; change the value upstream, leave the table out of "
          + "the changefeed, or replicate it into PostgreSQL, which holds it exactly", "22008");
    }
  }
}
