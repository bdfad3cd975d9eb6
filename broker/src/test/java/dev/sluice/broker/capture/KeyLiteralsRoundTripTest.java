package dev.sluice.broker.capture;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.v1.Value;
import dev.sluice.broker.snapshot.KeyLiterals;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A snapshot continues "after key K" from the typed key a sink recorded, so the key literal the broker
 * writes for a {@link Value} must read back, cast to the column's type, as the very value it came from:
 * for each key type, a value's text output (what capture and chunk reads parse) becomes a Value, the Value
 * its literal, and PostgreSQL must find the literal equal to the original (and print it the same).
 */
class KeyLiteralsRoundTripTest {

  private static TestPostgres pg;
  private static Connection c;

  @BeforeAll
  static void start() throws Exception {
    pg = TestPostgres.start();
    // the text format, as the snapshot readers read: each value is its type's output
    c = java.sql.DriverManager.getConnection(pg.jdbcUrl() + "?binaryTransfer=false", "postgres", null);
    try (Statement s = c.createStatement()) {
      s.execute("SET TIME ZONE 'Europe/Berlin'");   // instants must not depend on the session's zone
      s.execute("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')");
    }
  }

  @AfterAll
  static void stop() throws Exception {
    c.close();
    pg.close();
  }

  @ParameterizedTest(name = "{1} {0}")
  @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
      42                                   | integer                  | 23
      -9223372036854775808                 | bigint                   | 20
      7                                    | smallint                 | 21
      12345.678900                         | numeric                  | 1700
      -0.5                                 | numeric(10,3)            | 1700
      "it's, a \\"key\\""                  | text                     | 25
      ab                                   | character(4)             | 1042
      żółć                                 | character varying(10)    | 1043
      2b5ec7d4-5c5e-4c4f-9b0c-8b1f1f5b2a11 | uuid                     | 2950
      2024-02-29                           | date                     | 1082
      0044-03-15 BC                        | date                     | 1082
      infinity                             | date                     | 1082
      23:59:59.999999                      | time without time zone   | 1083
      2024-05-01 12:00:00.000123           | timestamp                | 1114
      2024-05-01 12:00:00.5+02             | timestamp with time zone | 1184
      0100-01-01 00:00:00 BC               | timestamp                | 1114
      -infinity                            | timestamp with time zone | 1184
      infinity                             | timestamp                | 1114
      294276-12-31 23:59:59.999999         | timestamp                | 1114
      \\x00ff10                            | bytea                    | 17
      true                                 | boolean                  | 16
      f                                    | boolean                  | 16
      0.1                                  | double precision         | 701
      1.0e-300                             | double precision         | 701
      0.1                                  | real                     | 700
      "{1,2,3}"                            | integer[]                | 1007
      happy                                | mood                     | 0
      """)
  void aKeyValueReadsBackAsItselfThroughItsLiteral(String input, String type, int oid) throws Exception {
    String original = text("SELECT CAST(? AS " + type + ")", input);
    PgType pgType = oid == 0 ? new PgType(0, "mood", PgType.Codec.ENUM, null) : types().resolve(oid);
    Value value = PgTextValues.parse(pgType, original);
    String literal = KeyLiterals.text(value);
    try (PreparedStatement ps = c.prepareStatement("SELECT CAST(? AS " + type + ") = CAST(? AS " + type + "), CAST(? AS "
        + type + ")")) {
      ps.setObject(1, literal, Types.OTHER);
      ps.setObject(2, input, Types.OTHER);
      ps.setObject(3, literal, Types.OTHER);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        assertThat(rs.getBoolean(1)).as("%s literal %s of %s", type, literal, original).isTrue();
        assertThat(rs.getString(2)).isEqualTo(original);
      }
    }
  }

  private static PgTypes types() {
    return new PgTypes(new PgCatalog(c));
  }

  private static String text(String sql, String param) throws Exception {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setObject(1, param, Types.OTHER);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getString(1);
      }
    }
  }
}
