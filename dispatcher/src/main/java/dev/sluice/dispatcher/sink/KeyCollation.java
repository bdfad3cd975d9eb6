package dev.sluice.dispatcher.sink;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The default collation of the tables the sink creates on MySQL/MariaDB: binary and NO PAD, so text
 * keys compare as PostgreSQL compares them ('abc' is not 'ABC', 'a' is not 'a '). The server default
 * (case-insensitive, PAD SPACE) would make distinct source keys one target row. Columns added or
 * retyped later without a collation inherit the table's. Tables the user created keep their own.
 */
final class KeyCollation {

  /** Binary NO PAD collations, best first: MariaDB 10.2+, MySQL 8.0.17+. */
  static final List<String> EXACT = List.of("utf8mb4_nopad_bin", "utf8mb4_0900_bin");
  /** Binary but PAD SPACE: 'a' and 'a ' still collide. */
  static final String PADDED = "utf8mb4_bin";

  private static final Logger LOG = LoggerFactory.getLogger(KeyCollation.class);

  private KeyCollation() {}

  /** The {@code CREATE TABLE} options for {@code dialect} on {@code connection}: empty for PostgreSQL. */
  static String tableOptions(Dialect dialect, Connection connection) throws SQLException {
    return dialect == Dialect.MYSQL ? " DEFAULT CHARSET=utf8mb4 COLLATE=" + choose(connection) : "";
  }

  static String choose(Connection connection) throws SQLException {
    Set<String> known = new HashSet<>();
    try (PreparedStatement ps = connection.prepareStatement(
        "SELECT COLLATION_NAME FROM information_schema.COLLATIONS WHERE COLLATION_NAME IN (?, ?)")) {
      ps.setString(1, EXACT.get(0));
      ps.setString(2, EXACT.get(1));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          known.add(rs.getString(1));
        }
      }
    }
    String chosen = choose(known);
    if (chosen.equals(PADDED)) {
      LOG.atWarn().addKeyValue("collation", PADDED).log("the JDBC target has no binary NO PAD collation ({}); "
          + "tables the sink creates use {}, so text keys differing only in trailing spaces will collide", EXACT, PADDED);
    }
    return chosen;
  }

  /** The first of {@link #EXACT} the server has, else {@link #PADDED}. */
  static String choose(Set<String> known) {
    return EXACT.stream().filter(known::contains).findFirst().orElse(PADDED);
  }
}
