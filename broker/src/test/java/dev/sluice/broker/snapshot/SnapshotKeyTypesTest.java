package dev.sluice.broker.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.error.SluiceException;
import dev.sluice.api.v1.RowOp;
import dev.sluice.api.v1.Value;
import dev.sluice.dispatcher.ChangeListener;
import dev.sluice.dispatcher.ClientConfig;
import dev.sluice.dispatcher.RowChangeView;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.SnapshotOutcome;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.dispatcher.SubscriptionHandle;
import dev.sluice.dispatcher.Transaction;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Keys of the types real schemas use, with the values that sort or print awkwardly, read in chunks of 7 rows:
 * each chunk continues after the last key of the one before (a literal of that key's type in the next
 * chunk's WHERE), so a key whose literal does not compare as the value did would lose rows or read them twice.
 * Every row arrives exactly once.
 */
class SnapshotKeyTypesTest {

  @TempDir
  static Path dir;
  private static SnapshotBroker sb;

  @BeforeAll
  static void start() {
    sb = SnapshotBroker.start(dir, 7, 1 << 20);
    sb.pg.exec("CREATE TYPE public.level AS ENUM ('low', 'mid', 'high')",
        "CREATE DOMAIN public.code AS text CHECK (VALUE <> 'forbidden')",
        "CREATE TYPE public.level_later AS ENUM ('z', 'a')");
  }

  @AfterAll
  static void stop() {
    if (sb != null) {
      sb.close();
    }
  }

  static Stream<Arguments> keys() {
    return Stream.of(
        // table, key column definition(s) and key, the rows' key values
        Arguments.of("k_text", "k text PRIMARY KEY", "SELECT k FROM (VALUES (''), (' '), ('a'), ('B'), ('b'),"
            + " ('a b'), ('a''b'), (E'a\\\\b'), ('ä'), ('é'), ('🐘'), ('Z'), ('zz'), ('\"q\"'), (E'tab\\there'),"
            + " ('NULL'), ('%'), ('_'), ('a%')) v(k) UNION ALL SELECT 'g' || g FROM generate_series(1, 30) g"),
        Arguments.of("k_numeric", "k numeric PRIMARY KEY", "SELECT k FROM (VALUES ('NaN'::numeric),"
            + " ('Infinity'), ('-Infinity'), (0), (-0.5), (1e-20), (1e20), (123.4500)) v(k)"
            + " UNION ALL SELECT g / 3.0 FROM generate_series(1, 30) g"),
        Arguments.of("k_float", "k double precision PRIMARY KEY", "SELECT k FROM (VALUES ('NaN'::float8),"
            + " ('Infinity'), ('-Infinity'), (0), (1e-300), (-1e300), (0.1), (1.0 / 3)) v(k)"
            + " UNION ALL SELECT g / 7.0 FROM generate_series(1, 30) g"),
        Arguments.of("k_real", "k real PRIMARY KEY", "SELECT (g / 3.0)::real FROM generate_series(1, 40) g"),
        Arguments.of("k_tz", "k timestamptz PRIMARY KEY", "SELECT k FROM (VALUES ('infinity'::timestamptz),"
            + " ('-infinity'), ('0044-03-15 12:00:00+00 BC'), ('1999-12-31 23:59:59.999999+14'),"
            + " ('294276-12-31 23:59:59.999999+00')) v(k) UNION ALL SELECT timestamptz '2024-02-29 00:00:00.000001+00'"
            + " + g * interval '1 microsecond 1 hour' FROM generate_series(1, 30) g"),
        Arguments.of("k_ts", "k timestamp PRIMARY KEY", "SELECT k FROM (VALUES ('infinity'::timestamp),"
            + " ('-infinity'), ('4713-01-01 00:00:00 BC')) v(k) UNION ALL SELECT timestamp '2024-01-01'"
            + " + g * interval '1.5 seconds' FROM generate_series(1, 30) g"),
        Arguments.of("k_date", "k date PRIMARY KEY", "SELECT k FROM (VALUES ('infinity'::date), ('-infinity'),"
            + " ('4714-11-24 BC'), ('5874897-12-31')) v(k) UNION ALL SELECT date '2000-01-01' + g"
            + " FROM generate_series(1, 30) g"),
        Arguments.of("k_uuid", "k uuid PRIMARY KEY", "SELECT md5(g::text)::uuid FROM generate_series(1, 40) g"),
        Arguments.of("k_bytea", "k bytea PRIMARY KEY", "SELECT k FROM (VALUES (''::bytea), ('\\x00'), ('\\xff'),"
            + " ('\\x5c27')) v(k) UNION ALL SELECT decode(md5(g::text), 'hex') FROM generate_series(1, 30) g"),
        Arguments.of("k_enum", "k public.level PRIMARY KEY", "SELECT unnest(enum_range(NULL::public.level))"),
        Arguments.of("k_enum_order", "k public.level_later, n int, PRIMARY KEY (k, n)",
            "SELECT e, g FROM unnest(enum_range(NULL::public.level_later)) e, generate_series(1, 15) g"),
        Arguments.of("k_domain", "k public.code PRIMARY KEY", "SELECT 'c' || g FROM generate_series(1, 40) g"),
        Arguments.of("k_char", "k char(3) PRIMARY KEY", "SELECT k FROM (VALUES ('a'), ('a b'), (' a')) v(k)"
            + " UNION ALL SELECT lpad(g::text, 3, '0') FROM generate_series(1, 30) g"),
        Arguments.of("k_bool_int", "b boolean, i bigint, PRIMARY KEY (b, i)", "SELECT g % 2 = 0,"
            + " CASE WHEN g = 1 THEN -9223372036854775808 WHEN g = 2 THEN 9223372036854775807 ELSE g END"
            + " FROM generate_series(1, 40) g"),
        Arguments.of("k_interval", "k interval PRIMARY KEY", "SELECT g * interval '1 day 1 second' - interval"
            + " '20 days' FROM generate_series(1, 40) g"),
        Arguments.of("k_inet", "k inet PRIMARY KEY", "SELECT k FROM (VALUES ('::1'::inet), ('10.0.0.0/8'),"
            + " ('10.0.0.1')) v(k) UNION ALL SELECT '192.168.0.0'::inet + g FROM generate_series(1, 30) g"),
        Arguments.of("k_mixed", "t text, d date, u uuid, PRIMARY KEY (t, d, u)", "SELECT 'x' || (g % 3),"
            + " date '2024-01-01' + (g % 5), md5(g::text)::uuid FROM generate_series(1, 40) g"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("keys")
  void everyRowArrivesOnceAcrossChunkBoundaries(String table, String columns, String rows) throws Exception {
    sb.pg.exec("CREATE TABLE public." + table + " (" + columns + ", payload text DEFAULT 'p')",
        "INSERT INTO public." + table + " SELECT * FROM (" + rows + ") r");
    long expected = sb.pg.queryLong("SELECT count(*) FROM public." + table);
    double copyChunksBefore = copyChunks();
    long start = sb.caughtUp();
    Reads reads = new Reads();
    try (SluiceClient client = SluiceClient.connect(ClientConfig.of("127.0.0.1:" + sb.port()))) {
      reads.handle = client.subscribe(Subscription.table("public." + table).from(start).withSnapshot(), reads);
      await().atMost(Duration.ofSeconds(60)).until(() -> reads.outcome.get() != null);
    }
    assertThat(reads.outcome.get().status()).as("%s: %s", table, reads.outcome.get())
        .isEqualTo(SnapshotOutcome.Status.COMPLETE);
    assertThat(reads.chunks.size()).as("chunks of " + table).isGreaterThanOrEqualTo((int) (expected / 7));
    List<String> keys = reads.keys();
    Set<String> distinct = new HashSet<>(keys);
    assertThat(keys.size() - distinct.size()).as("rows of %s read twice", table).isZero();
    assertThat(keys).as("rows of %s", table).hasSize((int) expected);
    if (expected > 3 * 7) {   // each reader's first chunk of a table goes by the cursor, the later ones by COPY
      assertThat(copyChunks()).as("chunks of %s read by COPY and parsed by the client (copy-text)", table)
          .isGreaterThan(copyChunksBefore);
    }
  }

  private static double copyChunks() {
    return sb.broker.meterRegistry().get("sluice.snapshot.chunks.read").tag("form", "copy_text").counter().count();
  }

  /** The READ rows of one subscription, each row's values except the payload. */
  private static final class Reads implements ChangeListener {
    final List<List<Value>> rows = new CopyOnWriteArrayList<>();
    final List<Object> chunks = new CopyOnWriteArrayList<>();
    final AtomicReference<SnapshotOutcome> outcome = new AtomicReference<>();
    volatile SubscriptionHandle handle;

    @Override
    public void onTransaction(Transaction txn) {
      for (RowChangeView r : txn.rows()) {
        if (r.op() == RowOp.ROW_OP_READ) {
          List<Value> v = r.after().values();
          rows.add(v.subList(0, v.size() - 1));
        }
      }
      if (txn.snapshot() != null) {
        chunks.add(txn.snapshot());
      }
      SubscriptionHandle h = handle;
      if (h != null) {
        h.acknowledge(txn.checkpoint());
      }
    }

    @Override
    public void onSnapshotComplete(SnapshotOutcome o) {
      outcome.set(o);
    }

    @Override
    public void onError(SluiceException error) {
    }

    List<String> keys() {
      List<String> out = new ArrayList<>();
      for (List<Value> row : rows) {
        out.add(row.toString());
      }
      return out;
    }
  }
}
