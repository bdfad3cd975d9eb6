package dev.sluice.broker.changefeed;

import static dev.sluice.broker.changefeed.HostedChangefeedEndToEndTest.rows;
import static dev.sluice.broker.changefeed.RealSchemasEndToEndTest.awaitCheckpoint;
import static dev.sluice.broker.changefeed.RealSchemasEndToEndTest.createFeed;
import static dev.sluice.broker.changefeed.RealSchemasEndToEndTest.fastProgress;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.broker.capture.TestPostgres;
import dev.sluice.broker.testing.RunningBroker;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The values of the types real schemas use, loaded by a changefeed's snapshot and by its live stream into a
 * downstream PostgreSQL: both end equal to the upstream, value by value. A snapshot chunk of many rows goes by
 * COPY text (PgCopyLoader), a small one and every live change by bound statements, so the table of 300 rows,
 * the table of 12 and the table written after the start take the three ways a value can reach the target.
 * The values are the awkward ones: NaN and infinities, BC and infinite dates, 24:00, text holding COPY's own
 * escapes and a literal {@code \N}, bytes 0x00-0xff, arrays with quotes, NULLs, the string NULL, two
 * dimensions and a lower bound other than 1, json whose spacing and key order are its own.
 */
class SnapshotEveryTypeEndToEndTest {

  private static final String COLUMNS = "id int PRIMARY KEY, i2 smallint, i8 bigint, n numeric(20,5), nn numeric,"
      + " r real, d double precision, t text, vc varchar(40), bpc char(5), b bytea, bo boolean, dt date,"
      + " ts timestamp, tz timestamptz, tm time, ttz timetz, iv interval, u uuid, j json, jb jsonb, ip inet,"
      + " cn cidr, mac macaddr, bt bit(8), vb varbit, tv tsvector, pt point, bx box, r4 int4range,"
      + " tr tstzrange, ia int[], ta text[], ia2 int[][], lb int[], e kinds.mood, dom kinds.pos, comp kinds.pair,"
      + " x xml, lsn pg_lsn, bxa box[], m money, ivd interval day to second(3), tz3 timestamp(3) with time zone,"
      + " ch \"char\", nm name, i8r int8range, dmr datemultirange, c1 character, pol polygon, circ circle,"
      + " tq tsquery, m8 macaddr8, vbn bit varying(12), jp jsonpath";

  /** Row {@code g}'s values: every tenth row NULL in every column but its key. */
  private static final String VALUES = "SELECT g,"
      + " CASE WHEN g % 10 = 0 THEN NULL WHEN g % 2 = 0 THEN -32768 + g ELSE 32767 - g END,"
      + " CASE WHEN g % 10 = 0 THEN NULL WHEN g % 3 = 0 THEN 9223372036854775807 WHEN g % 3 = 1"
      + "   THEN -9223372036854775808 ELSE g * 1000003 END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE g * 1234.56789 - 99999 END,"
      + " CASE WHEN g % 10 = 0 THEN NULL WHEN g % 4 = 0 THEN 'NaN'::numeric WHEN g % 4 = 1 THEN 'Infinity'::numeric"
      + "   WHEN g % 4 = 2 THEN '-Infinity'::numeric ELSE g::numeric / 7 END,"
      + " CASE WHEN g % 10 = 0 THEN NULL WHEN g % 5 = 0 THEN 'NaN'::real WHEN g % 5 = 1 THEN 'Infinity'::real"
      + "   WHEN g % 5 = 2 THEN '-Infinity'::real ELSE g / 3.0 END,"
      + " CASE WHEN g % 10 = 0 THEN NULL WHEN g % 4 = 0 THEN 1e-300 WHEN g % 4 = 1 THEN -0.0::float8"
      + "   WHEN g % 4 = 2 THEN 1.7976931348623157e308 ELSE g / 7.0::float8 END,"
      + " CASE WHEN g % 10 = 0 THEN NULL WHEN g % 3 = 0 THEN E'\\\\N' WHEN g % 3 = 1 THEN ''"
      + "   ELSE E'tab\\there ' || g || E'\\nnew\\\\line \"q\" ''s \\r ünï 🐘 \\b\\f' END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE repeat('v', g % 40) END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE 'ab' END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE decode(md5(g::text) || '00ff5c0a090d5c4e', 'hex') END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE g % 2 = 0 END,"
      + " CASE WHEN g % 10 = 0 THEN NULL WHEN g % 6 = 0 THEN 'infinity'::date WHEN g % 6 = 1 THEN '-infinity'::date"
      + "   WHEN g % 6 = 2 THEN '0044-03-15 BC'::date ELSE date '2024-02-29' + g END,"
      + " CASE WHEN g % 10 = 0 THEN NULL WHEN g % 6 = 0 THEN 'infinity'::timestamp WHEN g % 6 = 1"
      + "   THEN '0001-01-01 00:00:00 BC'::timestamp ELSE timestamp '2024-02-29 23:59:59.999999' + g * interval '1 h' END,"
      + " CASE WHEN g % 10 = 0 THEN NULL WHEN g % 6 = 0 THEN '-infinity'::timestamptz"
      + "   ELSE timestamptz '1999-12-31 23:59:59.000001+05:30' + g * interval '1 min' END,"
      + " CASE WHEN g % 10 = 0 THEN NULL WHEN g % 4 = 0 THEN '24:00:00'::time ELSE time '00:00:00.000001' + g * interval '7 min' END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE '12:34:56.789+05:30'::timetz END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE make_interval(years => g, days => -g, secs => g * 1.5) END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE md5(g::text)::uuid END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE ('{\"z\":  1, \"a\" : [1, 2.50, null], \"s\": \"x\\\\ty\\\\u00e9\", \"z\": ' || g || '}')::json END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE ('{\"k\": {\"n\": ' || g || '.10, \"t\": \"tab\\tquote\\\"\"}}')::jsonb END,"
      + " CASE WHEN g % 10 = 0 THEN NULL WHEN g % 2 = 0 THEN '2001:db8::1/64'::inet ELSE '192.168.0.1'::inet + g END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE '10.0.0.0/8'::cidr END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE '08:00:2b:01:02:03'::macaddr END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE (g % 256)::bit(8) END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE B'10101' END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE to_tsvector('english', 'the quick brown fox''s jump ' || g) END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE point(g, -g / 3.0) END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE box(point(0, 0), point(g, g)) END,"
      + " CASE WHEN g % 10 = 0 THEN NULL WHEN g % 3 = 0 THEN 'empty'::int4range ELSE int4range(g, NULL) END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE tstzrange('2024-01-01 00:00+00', 'infinity', '[)') END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE ARRAY[g, NULL, -g] END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE ARRAY['a,b', 'c\"d', E'e\\\\f', 'NULL', NULL, '', E'{t\\tab}'] END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE '{{1,2},{3,4}}'::int[] END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE '[0:1]={7,8}'::int[] END,"
      + " CASE WHEN g % 10 = 0 THEN NULL WHEN g % 2 = 0 THEN 'sad'::kinds.mood ELSE 'so so'::kinds.mood END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE g::kinds.pos END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE ROW('l,' || g, 'sad')::kinds.pair END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE ('<a b=\"' || g || '\">t &amp; u</a>')::xml END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE ('16/' || to_hex(g * 4096))::pg_lsn END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE ARRAY[box(point(1, 1), point(0, 0)), box(point(g, 2), point(1, 1))] END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE (g * 12.34)::money END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE g * interval '1 day 01:02:03.456789' END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE timestamptz '2024-06-01 12:00:00.123456+00' + g * interval '1 s' END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE chr(65 + g % 26)::\"char\" END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE ('n' || g)::name END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE int8range(-g, 9223372036854775806, '[]') END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE datemultirange(daterange('2024-01-01', '2024-02-01'),"
      + "   daterange('2024-03-01', NULL)) END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE 'q' END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE polygon(box(point(0, 0), point(g, 1))) END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE circle(point(g, g), 2.5) END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE to_tsquery('english', 'fox & !dog') END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE '08:00:2b:01:02:03:04:05'::macaddr8 END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE (g % 4096)::bit(12)::varbit END,"
      + " CASE WHEN g % 10 = 0 THEN NULL ELSE '$.a[*] ? (@ > 1)'::jsonpath END"
      + " FROM generate_series(FIRST, LAST) g";

  @Test
  void everyKindOfValueArrivesExactlyBySnapshotCopyBySmallSnapshotChunkAndLive(@TempDir Path dir) throws Exception {
    // 64-row chunks: the 300 rows' chunks after each reader's first come as COPY text lines (copy-text), which the
    // sink loads as they are, so each value also takes the way from the upstream's COPY TO to the target's COPY FROM
    dev.sluice.broker.ServeConfig serve = dev.sluice.broker.ServeConfig.ephemeral();
    serve = serve.withEventService(serve.eventService().withSnapshot(serve.eventService().snapshot()
        .withChunkRows(64)));
    try (TestPostgres downstream = TestPostgres.start();
         RunningBroker rb = RunningBroker.start(dir.resolve("broker"), fastProgress(), serve,
             "CREATE SCHEMA kinds",
             "CREATE TYPE kinds.mood AS ENUM ('sad', 'so so')",
             "CREATE DOMAIN kinds.pos AS int CHECK (VALUE > 0)",
             "CREATE TYPE kinds.pair AS (label text, mood kinds.mood)",
             "CREATE TABLE kinds.many (" + COLUMNS + ")",
             "CREATE TABLE kinds.few (" + COLUMNS + ")",
             "CREATE TABLE kinds.live (" + COLUMNS + ")",
             "INSERT INTO kinds.many " + values(1, 300),
             "INSERT INTO kinds.few " + values(1, 12))) {
      TestPostgres up = rb.upstream();
      createFeed(rb, "kinds", "kinds.*", downstream);
      await().atMost(Duration.ofSeconds(90)).until(() -> snapshotDone(rb.admin().send("GET",
          "/api/v1/changefeeds/kinds", null).json()));
      up.txn("INSERT INTO kinds.live " + values(1, 150));
      long last = up.txn("INSERT INTO kinds.live " + values(151, 300));

      awaitCheckpoint(rb, "kinds", last);
      List<String> differences = new java.util.ArrayList<>();
      for (String table : List.of("kinds.many", "kinds.few", "kinds.live")) {
        differences(rows(up, table), rows(downstream, table)).forEach(d -> differences.add(table + " " + d));
      }
      for (String table : List.of("kinds.many", "kinds.few", "kinds.live")) {
        String types = "SELECT string_agg(attname || ' ' || format_type(atttypid, atttypmod), ', ' ORDER BY attnum)"
            + " FROM pg_attribute WHERE attrelid = '" + table + "'::regclass AND attnum > 0 AND NOT attisdropped";
        assertThat(columnTypes(downstream, types)).as("%s's columns downstream", table)
            .isEqualTo(columnTypes(up, types));
      }
      assertThat(differences).isEmpty();
      for (String table : List.of("kinds.many", "kinds.few", "kinds.live")) {
        assertThat(rows(downstream, table)).as(table).isEqualTo(rows(up, table));
      }
      assertThat(rows(downstream, "kinds.many")).hasSize(300);
      assertThat(rb.broker().meterRegistry().get("sluice.snapshot.chunks.read").tag("form", "copy_text").counter()
          .count()).as("chunks that came as COPY text lines").isPositive();
      assertThat(rows(downstream, "kinds.live")).hasSize(300);
    }
  }

  /**
   * Updates and deletes find their rows by key, and in a table without one by every value of the old image
   * (REPLICA IDENTITY FULL), rows the snapshot loaded by COPY included: each kind of value must arrive exactly
   * for the match to hold (json, point, box and the like are matched by their text).
   */
  @Test
  void updatesAndDeletesOfEveryKindFindTheirRowsWithAndWithoutAKey(@TempDir Path dir) throws Exception {
    String heap = COLUMNS.replace("id int PRIMARY KEY", "id int");
    try (TestPostgres downstream = TestPostgres.start();
         RunningBroker rb = RunningBroker.start(dir.resolve("broker"), fastProgress(),
             "CREATE SCHEMA kinds",
             "CREATE TYPE kinds.mood AS ENUM ('sad', 'so so')",
             "CREATE DOMAIN kinds.pos AS int CHECK (VALUE > 0)",
             "CREATE TYPE kinds.pair AS (label text, mood kinds.mood)",
             "CREATE TABLE kinds.source (" + COLUMNS + ")",
             "CREATE TABLE kinds.keyed (" + COLUMNS + ")",
             "CREATE TABLE kinds.heap (" + heap + ")",
             "ALTER TABLE kinds.heap REPLICA IDENTITY FULL",
             "INSERT INTO kinds.source " + values(1, 200),
             "INSERT INTO kinds.keyed " + values(1, 100),
             "INSERT INTO kinds.heap " + values(1, 100))) {
      TestPostgres up = rb.upstream();
      createFeed(rb, "kinds", "kinds.*", downstream);
      await().atMost(Duration.ofSeconds(90)).until(() -> snapshotDone(rb.admin().send("GET",
          "/api/v1/changefeeds/kinds", null).json()));
      List<String> names = java.util.Arrays.stream(COLUMNS.split(", ")).map(c -> c.strip().split(" ")[0])
          .filter(n -> !n.equals("id")).toList();
      String set = "(" + String.join(", ", names) + ") = (SELECT " + String.join(", ", names)
          + " FROM kinds.source s WHERE s.id = t.id + 101)";
      long last = 0;
      for (String table : List.of("kinds.keyed", "kinds.heap")) {
        up.txn("UPDATE " + table + " t SET " + set + " WHERE t.id % 3 = 0",
            "UPDATE " + table + " t SET " + set + " WHERE t.id % 5 = 1",   // the rows the first left alone, too
            "DELETE FROM " + table + " WHERE id % 7 = 0",
            "INSERT INTO " + table + " " + values(101, 120));
        last = up.txn("UPDATE " + table + " t SET " + set + " WHERE t.id > 110",
            "DELETE FROM " + table + " WHERE id % 11 = 0");
      }

      awaitCheckpoint(rb, "kinds", last);
      List<String> differences = new java.util.ArrayList<>();
      for (String table : List.of("kinds.keyed", "kinds.heap")) {
        differences(rows(up, table), rows(downstream, table)).forEach(d -> differences.add(table + " " + d));
      }
      assertThat(differences).isEmpty();
      for (String table : List.of("kinds.keyed", "kinds.heap")) {
        assertThat(rows(downstream, table)).as(table).isEqualTo(rows(up, table)).hasSize(97);
      }
    }
  }

  /** The first values that differ, as "row id: column upstream=... downstream=...", column by column. */
  private static List<String> differences(List<String> want, List<String> got) {
    List<String> out = new java.util.ArrayList<>();
    for (int r = 0; r < Math.min(want.size(), got.size()); r++) {
      String[] w = want.get(r).split("\\|");
      String[] g = got.get(r).split("\\|");
      for (int c = 0; c < Math.min(w.length, g.length); c++) {
        String column = w[c].split("=")[0];
        if (!w[c].equals(g[c]) && out.stream().noneMatch(o -> o.contains(": " + column + " "))) {
          out.add(w[0] + ": " + column + " upstream " + w[c] + " downstream " + g[c]);
        }
      }
    }
    return out;
  }

  private static String columnTypes(TestPostgres pg, String sql) throws java.sql.SQLException {
    try (java.sql.Connection c = pg.connect(); java.sql.Statement s = c.createStatement();
         java.sql.ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  private static String values(int first, int last) {
    return VALUES.replace("FIRST", Integer.toString(first)).replace("LAST", Integer.toString(last));
  }

  /** Whether every table of the changefeed's snapshot reached its end; a FAILED changefeed fails with its error. */
  private static boolean snapshotDone(JsonObject cf) {
    assertThat(cf.getString("state")).as("changefeed: %s", cf.getValue("error")).isNotEqualTo("FAILED");
    JsonObject snapshot = cf.getJsonObject("snapshot");
    return snapshot != null && "done".equals(snapshot.getString("state"));
  }
}
