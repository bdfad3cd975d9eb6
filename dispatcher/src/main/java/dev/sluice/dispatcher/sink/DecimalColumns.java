package dev.sluice.dispatcher.sink;

import dev.sluice.api.v1.ColumnInfo;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.Value;
import dev.sluice.dispatcher.RowImage;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The declared {@code DECIMAL(p,s)} of MySQL/MariaDB target columns, read once per table from the JDBC
 * metadata, so that a decimal value the column cannot hold exactly is refused before it is bound: the
 * server rounds extra fraction digits with only a note, even in strict mode (an unconstrained PostgreSQL
 * numeric becomes {@code DECIMAL(65,30)}). Trailing zeros past the scale are exact. One instance per
 * connection; {@link #forget()} after anything that may have changed a column type.
 */
final class DecimalColumns {

  private record Declared(int precision, int scale) {

    boolean holds(String text) {
      BigDecimal v;
      try {
        v = new BigDecimal(text).stripTrailingZeros();
      } catch (NumberFormatException e) {
        return false;   // NaN, Infinity: no DECIMAL holds them
      }
      int fractionDigits = Math.max(v.scale(), 0);
      int integerDigits = v.signum() == 0 ? 0 : Math.max(v.precision() - v.scale(), 0);
      return fractionDigits <= scale && integerDigits <= precision - scale;
    }

    @Override
    public String toString() {
      return "DECIMAL(" + precision + "," + scale + ")";
    }
  }

  private final Connection connection;
  /** Per "schema.table": DECIMAL columns by name (MySQL column names ignore case). */
  private final Map<String, Map<String, Declared>> tables = new HashMap<>();

  DecimalColumns(Connection connection) {
    this.connection = connection;
  }

  /** Throws (SQL state 22003) when a decimal of {@code after} would not be stored exactly in schema.table. */
  void check(String schema, TableInfo info, RowImage after) throws SQLException {
    Map<String, Declared> declared = null;
    for (int i = 0; i < after.size() && i < info.getColumnsCount(); i++) {
      Value v = after.value(i);
      if (v.getKindCase() != Value.KindCase.DECIMAL_VALUE) {
        continue;
      }
      if (declared == null) {
        declared = declared(schema, info.getTableName());
      }
      ColumnInfo c = info.getColumns(i);
      Declared d = declared.get(c.getName());
      if (d != null && !d.holds(v.getDecimalValue())) {
        throw new SQLException("value " + SqlErrorText.value(v) + " for column " + c.getName() + " of "
            + Dialect.MYSQL.qualified(schema, info.getTableName()) + " does not fit its " + d + " exactly and would "
            + "be rounded or refused; give the upstream column a precision/scale that fits, or create the target "
            + "column wider or as text before starting the changefeed", "22003");
      }
    }
  }

  void forget() {
    tables.clear();
  }

  private Map<String, Declared> declared(String schema, String table) throws SQLException {
    Map<String, Declared> known = tables.get(schema + "." + table);
    if (known != null) {
      return known;
    }
    Map<String, Declared> columns = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    DatabaseMetaData md = connection.getMetaData();
    // MySQL/MariaDB: the database is the catalog; the table name is a LIKE pattern
    try (ResultSet rs = md.getColumns(schema, null, escaped(table, md.getSearchStringEscape()), "%")) {
      while (rs.next()) {
        int type = rs.getInt("DATA_TYPE");
        if (type == Types.DECIMAL || type == Types.NUMERIC) {
          columns.put(rs.getString("COLUMN_NAME"), new Declared(rs.getInt("COLUMN_SIZE"), rs.getInt("DECIMAL_DIGITS")));
        }
      }
    }
    tables.put(schema + "." + table, columns);
    return columns;
  }

  private static String escaped(String name, String escape) {
    return name.replace(escape, escape + escape).replace("_", escape + "_").replace("%", escape + "%");
  }
}
