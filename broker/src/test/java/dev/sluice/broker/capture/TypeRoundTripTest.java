package dev.sluice.broker.capture;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.sluice.api.KeyEncoding;
import dev.sluice.api.v1.ArrayValue;
import dev.sluice.api.v1.RowOp;
import dev.sluice.api.v1.Timestamp;
import dev.sluice.api.v1.Value;
import dev.sluice.api.v1.ValueKind;
import dev.sluice.schema.ColumnInfo;
import dev.sluice.schema.TableInfo;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** Every listed type goes from INSERT/UPDATE/DELETE on a real PostgreSQL to stored rows with the right values. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TypeRoundTripTest {

  private static final String COLUMNS = """
      id int8 PRIMARY KEY, c_int2 int2, c_int4 int4, c_int8 int8, c_numeric numeric(12,4), c_float4 float4,
      c_float8 float8, c_bool bool, c_text text, c_varchar varchar(20), c_char char(5), c_bytea bytea, c_date date,
      c_time time, c_timestamp timestamp, c_timestamptz timestamptz, c_uuid uuid, c_json json, c_jsonb jsonb,
      c_int_array int4[], c_text_array text[], c_mood mood, c_mood_array mood[], c_interval interval, c_big text""";

  private static final String VALUES = """
      1, -7, 2147483647, -9223372036854775808, 12.34, 1.5, 0.1, true, 'grüße 🙂', 'abc', 'ab', '\\x00ff10',
      '2024-02-29', '13:45:12.123456', '2024-01-31 13:45:12.5', '2024-01-31 12:00:00+01',
      'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"a": [1, 2]}', '{"b": 1, "a": 2}', '{1,NULL,3}',
      '{"a b","c\\"d"}', 'happy', '{sad,ok}', '1 day 2 hours', 'small'""";

  private TestPostgres pg;
  private CaptureHarness h;

  /** The server under test; subclasses run the same checks against another PostgreSQL version. */
  TestPostgres startPostgres() {
    return TestPostgres.start();
  }

  @BeforeAll
  void startCapture(@TempDir Path dir) {
    pg = startPostgres();
    pg.exec("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')",
        "CREATE TABLE all_types (" + COLUMNS + ")",
        "CREATE TABLE all_types_full (" + COLUMNS + ")",
        "ALTER TABLE all_types_full REPLICA IDENTITY FULL");
    h = CaptureHarness.start(dir, pg, CaptureHarness.config());
  }

  @AfterAll
  void stop() {
    h.close();
    pg.close();
  }

  @Test
  void insertStoresEveryTypeWithItsValueAndKind() {
    long lsn = pg.txn("INSERT INTO all_types VALUES (" + VALUES + ")");
    h.awaitResolved(lsn);

    List<CaptureHarness.StoredRow> rows = h.rows(pg.oid("all_types")).stream()
        .filter(r -> r.keyHash() == KeyEncoding.hash(List.of(i64(1)))).toList();
    assertThat(rows).hasSize(1);
    CaptureHarness.StoredRow row = rows.get(0);
    assertThat(row.change().getOp()).isEqualTo(RowOp.ROW_OP_INSERT);
    assertThat(row.change().getBeforeList()).isEmpty();
    assertThat(row.change().getAfterList()).containsExactlyElementsOf(expectedRow(1, "small"));
    assertThat(row.rowSeq()).isZero();
    assertThat(row.keyHash()).isEqualTo(KeyEncoding.hash(List.of(i64(1)))).isEqualTo(row.change().getKeyHash());
    assertThat(h.counter("sluice.capture.fallback.values")).isGreaterThanOrEqualTo(1);

    TableInfo info = h.schemas.tableInfoAt(pg.oid("all_types"), row.commitTs());
    assertThat(info.columns()).extracting(ColumnInfo::kind).containsExactly(
        ValueKind.VALUE_KIND_INT64, ValueKind.VALUE_KIND_INT64, ValueKind.VALUE_KIND_INT64, ValueKind.VALUE_KIND_INT64,
        ValueKind.VALUE_KIND_DECIMAL, ValueKind.VALUE_KIND_DOUBLE, ValueKind.VALUE_KIND_DOUBLE, ValueKind.VALUE_KIND_BOOL,
        ValueKind.VALUE_KIND_STRING, ValueKind.VALUE_KIND_STRING, ValueKind.VALUE_KIND_STRING, ValueKind.VALUE_KIND_BYTES,
        ValueKind.VALUE_KIND_DATE, ValueKind.VALUE_KIND_TIME, ValueKind.VALUE_KIND_TIMESTAMP,
        ValueKind.VALUE_KIND_TIMESTAMP_TZ, ValueKind.VALUE_KIND_UUID, ValueKind.VALUE_KIND_JSON, ValueKind.VALUE_KIND_JSON,
        ValueKind.VALUE_KIND_ARRAY, ValueKind.VALUE_KIND_ARRAY, ValueKind.VALUE_KIND_STRING, ValueKind.VALUE_KIND_ARRAY,
        ValueKind.VALUE_KIND_TEXT_FALLBACK, ValueKind.VALUE_KIND_STRING);
    assertThat(info.columns().get(19).elementKind()).isEqualTo(ValueKind.VALUE_KIND_INT64);
    assertThat(info.columns().get(22).elementKind()).isEqualTo(ValueKind.VALUE_KIND_STRING);
    assertThat(info.columns().get(22).sourceType()).isEqualTo("public.mood[]");
    assertThat(info.primaryKey()).containsExactly("id");
  }

  @Test
  void nullsUpdatesAndDeletesFollowTheReplicaIdentity() {
    long lsn = pg.txn(
        "INSERT INTO all_types (id) VALUES (2)",
        "UPDATE all_types SET c_text = 'changed', c_int4 = 5 WHERE id = 2",
        "DELETE FROM all_types WHERE id = 2");
    h.awaitResolved(lsn);

    List<CaptureHarness.StoredRow> rows = h.rows(pg.oid("all_types")).stream()
        .filter(r -> r.keyHash() == KeyEncoding.hash(List.of(i64(2)))).toList();
    assertThat(rows).extracting(r -> r.change().getOp())
        .containsExactly(RowOp.ROW_OP_INSERT, RowOp.ROW_OP_UPDATE, RowOp.ROW_OP_DELETE);
    assertThat(rows).extracting(CaptureHarness.StoredRow::rowSeq).containsExactly(0L, 1L, 2L);
    assertThat(rows).extracting(CaptureHarness.StoredRow::commitTs).containsOnly(rows.get(0).commitTs());
    assertThat(rows.get(0).change().getAfterList().subList(1, 25)).containsOnly(PgTextValues.NULL);
    // default identity, key unchanged: no before image on update; the key only on delete
    assertThat(rows.get(1).change().getBeforeList()).isEmpty();
    assertThat(rows.get(1).change().getAfter(8)).isEqualTo(str("changed"));
    assertThat(rows.get(1).change().getAfter(2)).isEqualTo(i64(5));
    assertThat(rows.get(2).change().getBefore(0)).isEqualTo(i64(2));
    assertThat(rows.get(2).change().getBeforeList().subList(1, 25)).containsOnly(PgTextValues.UNAVAILABLE);
    assertThat(rows.get(2).change().getAfterList()).isEmpty();
  }

  @Test
  void replicaIdentityFullGivesWholeBeforeImages() {
    long lsn = pg.txn(
        "INSERT INTO all_types_full VALUES (" + VALUES + ")",
        "UPDATE all_types_full SET c_int4 = 1 WHERE id = 1",
        "DELETE FROM all_types_full WHERE id = 1");
    h.awaitResolved(lsn);

    List<CaptureHarness.StoredRow> rows = h.rows(pg.oid("all_types_full"));
    List<Value> original = expectedRow(1, "small");
    assertThat(rows).hasSize(3);
    assertThat(rows.get(1).change().getBeforeList()).containsExactlyElementsOf(original);
    List<Value> updated = new java.util.ArrayList<>(original);
    updated.set(2, i64(1));
    assertThat(rows.get(1).change().getAfterList()).containsExactlyElementsOf(updated);
    assertThat(rows.get(2).change().getBeforeList()).containsExactlyElementsOf(updated);
  }

  @Test
  void unchangedToastValueIsUnavailableInTheNewImage() {
    long lsn = pg.txn(
        "INSERT INTO all_types (id, c_big) VALUES (3, (SELECT string_agg(md5(g::text), '') FROM generate_series(1, 4000) g))",
        "UPDATE all_types SET c_int2 = 9 WHERE id = 3");
    h.awaitResolved(lsn);

    List<CaptureHarness.StoredRow> rows = h.rows(pg.oid("all_types")).stream()
        .filter(r -> r.keyHash() == KeyEncoding.hash(List.of(i64(3)))).toList();
    assertThat(rows).hasSize(2);
    assertThat(rows.get(0).change().getAfter(24).getStringValue()).hasSize(128_000);
    assertThat(rows.get(1).change().getAfter(24)).isEqualTo(PgTextValues.UNAVAILABLE);
    assertThat(rows.get(1).change().getAfter(1)).isEqualTo(i64(9));
  }

  @Test
  void boxArrayElementsAreSplitAtTheBoxDelimiter() {
    pg.exec("CREATE TABLE box_arrays (id int PRIMARY KEY, boxes box[])");
    long lsn = pg.txn("INSERT INTO box_arrays VALUES (1, ARRAY[box '((1,1),(0,0))', box '((2,2),(1,1))', NULL])");
    h.awaitResolved(lsn);

    // PostgreSQL prints {(1,1),(0,0);(2,2),(1,1);NULL}: box separates array elements with ';' (typdelim)
    assertThat(h.rows(pg.oid("box_arrays"))).singleElement().satisfies(r -> assertThat(r.change().getAfter(1))
        .isEqualTo(arr(str("(1,1),(0,0)"), str("(2,2),(1,1)"), PgTextValues.NULL)));
  }

  /** Issue #16 (4): infinity was stored as the extremes, the same as the finite 294247-01-10 04:00:54.775807. */
  @Test
  void infinityBcAndTheExtremeFiniteMomentsAreStoredExactly() {
    pg.exec("CREATE TABLE moments (id int PRIMARY KEY, d date, t timestamp, tz timestamptz, tzs timestamptz[])");
    double fallbacksBefore = h.counter("sluice.capture.fallback.values");
    long lsn = pg.txn("SET LOCAL TIME ZONE 'UTC'",
        "INSERT INTO moments VALUES (1, 'infinity', 'infinity', '-infinity', '{infinity,-infinity}')",
        "INSERT INTO moments VALUES (2, '4714-11-24 BC', '294247-01-10 04:00:54.775807', '294276-12-31 23:59:59.999999+00',"
            + " '{\"4714-11-24 00:00:00+00 BC\"}')");
    h.awaitResolved(lsn);

    List<CaptureHarness.StoredRow> rows = h.rows(pg.oid("moments"));
    Timestamp.Builder infinity = Timestamp.newBuilder().setMicros(Long.MAX_VALUE)
        .setSpecial(dev.sluice.api.v1.TimeSpecial.TIME_SPECIAL_INFINITY);
    Timestamp.Builder minusInfinity = Timestamp.newBuilder().setMicros(Long.MIN_VALUE)
        .setSpecial(dev.sluice.api.v1.TimeSpecial.TIME_SPECIAL_MINUS_INFINITY).setWithZone(true);
    assertThat(rows.get(0).change().getAfterList()).containsExactly(i64(1),
        Value.newBuilder().setDateValue(Integer.MAX_VALUE).build(),
        Value.newBuilder().setTimestampValue(infinity).build(),
        Value.newBuilder().setTimestampValue(minusInfinity).build(),
        arr(Value.newBuilder().setTimestampValue(infinity.clone().setWithZone(true)).build(),
            Value.newBuilder().setTimestampValue(minusInfinity).build()));
    Instant bc = LocalDateTime.of(-4713, 11, 24, 0, 0).toInstant(ZoneOffset.UTC);
    long pastMax = java.math.BigInteger.valueOf(LocalDateTime.of(294276, 12, 31, 23, 59, 59).toInstant(ZoneOffset.UTC)
        .getEpochSecond()).multiply(java.math.BigInteger.valueOf(1_000_000)).add(java.math.BigInteger.valueOf(999_999))
        .subtract(java.math.BigInteger.valueOf(Long.MAX_VALUE)).longValueExact();
    assertThat(rows.get(1).change().getAfterList()).containsExactly(i64(2),
        Value.newBuilder().setDateValue((int) LocalDate.of(-4713, 11, 24).toEpochDay()).build(),
        Value.newBuilder().setTimestampValue(Timestamp.newBuilder().setMicros(Long.MAX_VALUE)).build(),
        Value.newBuilder().setTimestampValue(Timestamp.newBuilder().setMicros(Long.MAX_VALUE).setMicrosPastMax(pastMax)
            .setWithZone(true)).build(),
        arr(ts(bc, true)));
    assertThat(h.counter("sluice.capture.fallback.values")).as("nothing fell back to text").isEqualTo(fallbacksBefore);
  }

  /** The values of {@link #VALUES}, built independently of the capture's parser. */
  private static List<Value> expectedRow(long id, String big) {
    return List.of(
        i64(id), i64(-7), i64(2147483647), i64(Long.MIN_VALUE),
        Value.newBuilder().setDecimalValue("12.3400").build(),
        Value.newBuilder().setDoubleValue(1.5).build(),
        Value.newBuilder().setDoubleValue(0.1).build(),
        Value.newBuilder().setBoolValue(true).build(),
        str("grüße 🙂"), str("abc"), str("ab   "),
        Value.newBuilder().setBytesValue(ByteString.copyFrom(new byte[] {0, (byte) 0xff, 0x10})).build(),
        Value.newBuilder().setDateValue((int) LocalDate.of(2024, 2, 29).toEpochDay()).build(),
        Value.newBuilder().setTimeMicrosValue(((13 * 60 + 45) * 60 + 12) * 1_000_000L + 123_456).build(),
        ts(LocalDateTime.of(2024, 1, 31, 13, 45, 12, 500_000_000).toInstant(ZoneOffset.UTC), false),
        ts(Instant.parse("2024-01-31T11:00:00Z"), true),
        Value.newBuilder().setUuidValue(uuid(UUID.fromString("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"))).build(),
        Value.newBuilder().setJsonValue("{\"a\": [1, 2]}").build(),
        Value.newBuilder().setJsonValue("{\"a\": 2, \"b\": 1}").build(),
        arr(i64(1), PgTextValues.NULL, i64(3)),
        arr(str("a b"), str("c\"d")),
        str("happy"),
        arr(str("sad"), str("ok")),
        str("1 day 02:00:00"),
        str(big));
  }

  private static Value i64(long v) {
    return Value.newBuilder().setInt64Value(v).build();
  }

  private static Value str(String v) {
    return Value.newBuilder().setStringValue(v).build();
  }

  private static Value ts(Instant i, boolean zone) {
    return Value.newBuilder().setTimestampValue(Timestamp.newBuilder()
        .setMicros(i.getEpochSecond() * 1_000_000L + i.getNano() / 1000).setWithZone(zone)).build();
  }

  private static ByteString uuid(UUID u) {
    java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(16);
    b.putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits());
    return ByteString.copyFrom(b.array());
  }

  private static Value arr(Value... elements) {
    return Value.newBuilder().setArrayValue(ArrayValue.newBuilder().addAllElements(List.of(elements))).build();
  }
}
