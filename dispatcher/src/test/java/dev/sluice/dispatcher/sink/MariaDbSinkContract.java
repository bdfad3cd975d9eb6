package dev.sluice.dispatcher.sink;

import static dev.sluice.dispatcher.sink.SinkFixtures.AMOUNTS;
import static dev.sluice.dispatcher.sink.SinkFixtures.ORDERS;
import static dev.sluice.dispatcher.sink.SinkFixtures.col;
import static dev.sluice.dispatcher.sink.SinkFixtures.ddl;
import static dev.sluice.dispatcher.sink.SinkFixtures.dec;
import static dev.sluice.dispatcher.sink.SinkFixtures.i;
import static dev.sluice.dispatcher.sink.SinkFixtures.ins;
import static dev.sluice.dispatcher.sink.SinkFixtures.insert;
import static dev.sluice.dispatcher.sink.SinkFixtures.txn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.api.v1.DdlType;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.ValueKind;
import dev.sluice.dispatcher.Transaction;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link JdbcUpsertSinkContract} and what is MariaDB's own (a killed connection, exact collations, DECIMAL
 * bounds), run against a real MariaDB by each subclass: a server process the test starts
 * ({@link JdbcUpsertSinkMariaDbTest}) and a container on a network of the test's
 * ({@link JdbcUpsertSinkMariaDbContainerTest}). The sink connects as {@code root} in both.
 */
abstract class MariaDbSinkContract extends JdbcUpsertSinkContract {

  @Override
  String targetSchemaPrefix() {
    return "t_";
  }

  @Override
  List<String> countingTriggerSql(String schema) {
    String s = '`' + schema + '`';
    return List.of("CREATE TABLE " + s + ".apply_count (n bigint)", "INSERT INTO " + s + ".apply_count VALUES (0)",
        "CREATE TRIGGER " + s + ".bump_i AFTER INSERT ON " + s + ".orders FOR EACH ROW UPDATE " + s
            + ".apply_count SET n = n + 1",
        "CREATE TRIGGER " + s + ".bump_u AFTER UPDATE ON " + s + ".orders FOR EACH ROW UPDATE " + s
            + ".apply_count SET n = n + 1");
  }

  @Override
  String sameDialectAddQty() {
    return "ALTER TABLE public.orders ADD COLUMN qty bigint";
  }

  @Override
  String otherDialect() {
    return "postgresql";
  }

  @Test
  void aKilledConnectionIsTransientAndTheRetryAppliesTheBatchOnce() throws Exception {
    sink.apply(List.of(ins(101, 1, "a")), 101);
    long sinkConnection;
    try (Connection c = connect(); var st = c.createStatement();
         var rs = st.executeQuery("SELECT ID FROM information_schema.PROCESSLIST WHERE USER = 'root' "
             + "AND COMMAND <> 'Daemon' AND ID <> CONNECTION_ID() ORDER BY ID DESC LIMIT 1")) {
      rs.next();
      sinkConnection = rs.getLong(1);
    }
    exec("KILL CONNECTION " + sinkConnection);
    List<dev.sluice.dispatcher.Transaction> batch = List.of(ins(102, 2, "b"), ins(103, 3, "c"));

    assertThatThrownBy(() -> sink.apply(batch, 103)).isInstanceOf(SinkUnavailableException.class);
    assertThat(rows()).containsExactly("1:a:null");

    sink.apply(batch, 103);
    assertThat(rows()).containsExactly("1:a:null", "2:b:null", "3:c:null");
    assertThat(storedCheckpoint()).isEqualTo(103);
  }

  /** The sink creates its tables binary and NO PAD; columns it adds or retypes later inherit that. */
  @Test
  void everyTextColumnOfTheTablesTheSinkCreatesComparesExactly() throws Exception {
    sink.apply(List.of(ins(101, 1, "a")), 101);
    TableInfo tagged = ORDERS.toBuilder().setVersion(500)
        .addColumns(col("tag", "text", ValueKind.VALUE_KIND_STRING, true)).build();
    TableInfo wider = tagged.toBuilder().setVersion(600)
        .setColumns(1, col("note", "character varying(200)", ValueKind.VALUE_KIND_STRING, true)).build();
    sink.applyDdl(ddl(500, DdlType.DDL_TYPE_ADD_COLUMN, "", otherDialect(), ORDERS, tagged), 500);
    sink.applyDdl(ddl(600, DdlType.DDL_TYPE_ALTER_COLUMN_TYPE, "", otherDialect(), tagged, wider), 600);

    List<String> collations = new ArrayList<>();
    try (Connection c = connect(); Statement st = c.createStatement();
         ResultSet rs = st.executeQuery("SELECT CONCAT(TABLE_NAME, '.', COLUMN_NAME, ' ', COLLATION_NAME) "
             + "FROM information_schema.COLUMNS WHERE COLLATION_NAME IS NOT NULL AND (TABLE_SCHEMA = '" + schema
             + "' OR TABLE_NAME LIKE 'sluice%') ORDER BY 1")) {
      while (rs.next()) {
        collations.add(rs.getString(1));
      }
    }
    assertThat(collations).containsExactly("orders.big utf8mb4_nopad_bin", "orders.note utf8mb4_nopad_bin",
        "orders.tag utf8mb4_nopad_bin", "sluice_checkpoint.changefeed_id utf8mb4_nopad_bin",
        "sluice_fence.changefeed_id utf8mb4_nopad_bin",
        "sluice_table_checkpoint.changefeed_id utf8mb4_nopad_bin",
        "sluice_table_checkpoint.snapshot_cursor utf8mb4_nopad_bin",   // base64 text: any collation compares it
        "sluice_table_checkpoint.table_name utf8mb4_nopad_bin");
  }

  /** "id=v" of the amounts table, v without trailing zeros. */
  List<String> amounts() throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = connect(); Statement st = c.createStatement();
         ResultSet rs = st.executeQuery("SELECT id, v FROM `" + schema + "`.amounts ORDER BY id")) {
      while (rs.next()) {
        out.add(rs.getLong(1) + "=" + new java.math.BigDecimal(rs.getString(2)).stripTrailingZeros().toPlainString());
      }
    }
    return out;
  }

  private static Transaction amount(long commitTs, TableInfo t, long id, String v) {
    return txn(commitTs, t, insert(t, 0, i(id), dec(v)));
  }

  /** An unconstrained numeric becomes DECIMAL(65,30); the server would round a finer value without an error. */
  @Test
  void aDecimalTheTargetColumnCannotHoldExactlyIsRefusedNamingColumnAndType() throws Exception {
    String thirtyDigits = "0.123456789012345678901234567891";
    sink.apply(List.of(amount(101, AMOUNTS, 1, "1.500"), amount(102, AMOUNTS, 2, thirtyDigits)), 102);

    String tooFine = "0.1234567890123456789012345678901234567890";
    String tooLarge = "1" + "0".repeat(35);   // 36 integer digits; DECIMAL(65,30) holds 35
    for (String v : List.of(tooFine, tooLarge, "-" + tooFine)) {
      assertThatThrownBy(() -> sink.apply(List.of(amount(103, AMOUNTS, 3, "7"), amount(104, AMOUNTS, 4, v)), 104))
          .isInstanceOf(SinkFailedException.class).hasMessageContaining("`" + schema + "`.`amounts`")
          .hasMessageContaining("column v").hasMessageContaining(v).hasMessageContaining("DECIMAL(65,30)")
          .hasMessageContaining("precision/scale");
    }
    assertThat(amounts()).containsExactly("1=1.5", "2=" + thirtyDigits);
    assertThat(storedCheckpoint()).isEqualTo(102);
  }

  /** The check follows the target column as it is now: after a failure, and after a DDL the sink applied. */
  @Test
  void decimalsAreCheckedAgainstTheTargetColumnAsItIsNow() throws Exception {
    TableInfo prices = AMOUNTS.toBuilder().setTableName("amounts")
        .setColumns(1, col("v", "numeric(6,2)", ValueKind.VALUE_KIND_DECIMAL, true)).build();
    sink.apply(List.of(amount(101, prices, 1, "1.25")), 101);
    List<Transaction> finer = List.of(amount(102, prices, 2, "1.255"));
    assertThatThrownBy(() -> sink.apply(finer, 102)).isInstanceOf(SinkFailedException.class)
        .hasMessageContaining("1.255").hasMessageContaining("DECIMAL(6,2)");
    assertThatThrownBy(() -> sink.apply(List.of(amount(102, prices, 2, "12345")), 102))
        .isInstanceOf(SinkFailedException.class).hasMessageContaining("DECIMAL(6,2)");

    exec("ALTER TABLE `" + schema + "`.amounts MODIFY v LONGTEXT");   // what the message advises
    sink.apply(finer, 102);
    assertThat(amounts()).containsExactly("1=1.25", "2=1.255");

    TableInfo retyped = prices.toBuilder().setVersion(700)
        .setColumns(1, col("v", "numeric(12,4)", ValueKind.VALUE_KIND_DECIMAL, true)).build();
    sink.applyDdl(ddl(700, DdlType.DDL_TYPE_ALTER_COLUMN_TYPE, "", otherDialect(), prices, retyped), 700);
    assertThatThrownBy(() -> sink.apply(List.of(amount(701, retyped, 3, "1.23456")), 701))
        .isInstanceOf(SinkFailedException.class).hasMessageContaining("DECIMAL(12,4)");
  }

  /** NaN has no DECIMAL: such a column refuses it through the typed error, a text column keeps it. */
  @Test
  void aNumericNaNIsRefusedByADecimalColumnAndKeptByATextOne() throws Exception {
    List<Transaction> nan = List.of(amount(101, AMOUNTS, 1, "NaN"));
    assertThatThrownBy(() -> sink.apply(nan, 101)).isInstanceOf(SinkFailedException.class)
        .hasMessageContaining("NaN").hasMessageContaining("DECIMAL(65,30)");

    exec("ALTER TABLE `" + schema + "`.amounts MODIFY v LONGTEXT");
    sink.apply(nan, 101);
    try (Connection c = connect(); Statement st = c.createStatement();
         ResultSet rs = st.executeQuery("SELECT v FROM `" + schema + "`.amounts WHERE id = 1")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo("NaN");
    }
  }

  /** Issue #16 (4): a value MariaDB cannot hold is refused by name, never clamped or zeroed. */
  @Test
  void datesAndTimestampsOutOfRangeAreRefusedByTableColumnAndValue() throws Exception {
    TableInfo m = SinkFixtures.MOMENTS;
    sink.apply(List.of(txn(101, m,
        insert(m, 0, i(1), SinkFixtures.date(java.time.LocalDate.of(1, 1, 1)),
            SinkFixtures.ts(java.time.LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999_999_000), false),
            SinkFixtures.ts(java.time.LocalDateTime.of(1, 1, 1, 0, 0), true),
            SinkFixtures.arr(SinkFixtures.dateInfinity(1), SinkFixtures.date(java.time.LocalDate.of(-4712, 1, 1))),
            SinkFixtures.arr(SinkFixtures.tsInfinity(-1, true))))), 101);
    try (Connection c = connect(); Statement st = c.createStatement();
         ResultSet rs = st.executeQuery("SELECT d, t, tz, ds, tzs FROM " + config().dialect().qualified(schema, "moments"))) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo("0001-01-01");
      assertThat(rs.getString(2)).isEqualTo("9999-12-31 23:59:59.999999");
      assertThat(rs.getString(3)).startsWith("0001-01-01 00:00:00");
      assertThat(rs.getString(4)).isEqualTo("[\"infinity\",\"-4712-01-01\"]");   // arrays are JSON: exact as text
      assertThat(rs.getString(5)).isEqualTo("[\"-infinity\"]");
    }

    assertThatThrownBy(() -> sink.apply(List.of(txn(102, m, insert(m, 0, i(2), SinkFixtures.dateInfinity(1),
        SinkFixtures.nul(), SinkFixtures.nul(), SinkFixtures.nul(), SinkFixtures.nul()))), 102))
        .isInstanceOf(SinkFailedException.class).hasMessageContaining("public.moments").hasMessageContaining("102")
        .hasMessageContaining("'infinity' of column d (date)").hasMessageContaining("replicate it into PostgreSQL");
    assertThatThrownBy(() -> sink.apply(List.of(txn(103, m, insert(m, 0, i(3), SinkFixtures.nul(),
        SinkFixtures.ts(java.time.LocalDateTime.of(-43, 3, 15, 12, 0), false), SinkFixtures.nul(), SinkFixtures.nul(),
        SinkFixtures.nul()))), 103))
        .isInstanceOf(SinkFailedException.class).hasMessageContaining("'0044-03-15 12:00:00.000000 BC' of column t");
    assertThatThrownBy(() -> sink.apply(List.of(txn(104, m, insert(m, 0, i(4), SinkFixtures.nul(), SinkFixtures.nul(),
        SinkFixtures.ts(java.time.LocalDateTime.of(10000, 1, 1, 0, 0), true), SinkFixtures.nul(), SinkFixtures.nul()))), 104))
        .isInstanceOf(SinkFailedException.class).hasMessageContaining("'10000-01-01 00:00:00.000000+00' of column tz");
    assertThat(scalar("SELECT count(*) FROM " + config().dialect().qualified(schema, "moments"))).isEqualTo(1);
    assertThat(storedCheckpoint()).isEqualTo(101);
  }

  /**
   * A float NaN or infinity (PostgreSQL real and double precision hold them, MySQL/MariaDB FLOAT and DOUBLE do not)
   * is refused by table, column and value: before, the driver wrote it as a bare word and the target answered
   * "Unknown column 'Infinity' in 'VALUES'", naming neither, in the key of an initial load's first chunk as anywhere.
   */
  @Test
  void aFloatNanOrInfinityIsRefusedByTableColumnAndValue() throws Exception {
    TableInfo f = TableInfo.newBuilder().setTableId(20010).setSchemaName("public").setTableName("floats").setVersion(1)
        .addColumns(SinkFixtures.col("k", "double precision", dev.sluice.api.v1.ValueKind.VALUE_KIND_DOUBLE, false))
        .addColumns(SinkFixtures.col("v", "real", dev.sluice.api.v1.ValueKind.VALUE_KIND_DOUBLE, true))
        .addPrimaryKey("k").build();
    sink.apply(List.of(txn(101, f, insert(f, 0, dbl(1.5), dbl(-0.25)))), 101);

    for (double bad : new double[] {Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY, Double.NaN}) {
      assertThatThrownBy(() -> sink.apply(List.of(txn(102, f, insert(f, 0, dbl(bad), dbl(1)))), 102))
          .isInstanceOf(SinkFailedException.class).hasMessageContaining("public.floats")
          .hasMessageContaining("'" + bad + "' of column k (double precision)")
          .hasMessageContaining("no NaN and no infinity");
      assertThatThrownBy(() -> sink.apply(List.of(txn(102, f, insert(f, 0, dbl(2), dbl(bad)))), 102))
          .isInstanceOf(SinkFailedException.class).hasMessageContaining("of column v (real)");
    }
    assertThat(scalar("SELECT count(*) FROM " + config().dialect().qualified(schema, "floats"))).isEqualTo(1);
    assertThat(storedCheckpoint()).isEqualTo(101);
  }

  private static dev.sluice.api.v1.Value dbl(double v) {
    return dev.sluice.api.v1.Value.newBuilder().setDoubleValue(v).build();
  }

  /** Issue #16 (5): other dialects store user-defined types by what they are built from. */
  @Test
  void userDefinedTypesMapToTheirStatedTypes() throws Exception {
    TableInfo v1 = SinkFixtures.people("types", 100, "sad", "ok");
    sink.applyDdl(ddl(100, DdlType.DDL_TYPE_CREATE_TABLE, "CREATE TABLE public.people (id bigint PRIMARY KEY,"
        + " m types.mood, ms types.mood[], p price, t tagged)", "postgresql", TableInfo.getDefaultInstance(), v1), 100);
    TableInfo v2 = SinkFixtures.people("types", 200, "sad", "happy", "ok");
    sink.applyDdl(ddl(200, DdlType.DDL_TYPE_ALTER_TYPE, "ALTER TYPE types.mood ADD VALUE 'happy'", "postgresql", v1, v2),
        200);
    sink.apply(List.of(txn(201, v2, insert(v2, 0, i(1), SinkFixtures.s("happy"), SinkFixtures.arr(SinkFixtures.s("sad"),
        SinkFixtures.s("happy")), dec("12.50"), SinkFixtures.s("(x,happy)")))), 201);

    try (Connection c = connect(); Statement st = c.createStatement();
         ResultSet rs = st.executeQuery("SELECT m, ms, p, t FROM " + config().dialect().qualified(schema, "people"))) {
      assertThat(rs.next()).isTrue();
      assertThat(List.of(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)))
          .containsExactly("happy", "[\"sad\",\"happy\"]", "12.50", "(x,happy)");
    }
    try (Connection c = connect(); ResultSet rs = c.getMetaData().getColumns(schema, null, "people", "p")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString("TYPE_NAME")).as("a domain is its base type").isEqualToIgnoringCase("DECIMAL");
    }
  }
}
