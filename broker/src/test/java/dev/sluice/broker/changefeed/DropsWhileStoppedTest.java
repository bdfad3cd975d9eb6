package dev.sluice.broker.changefeed;

import static dev.sluice.broker.changefeed.HostedChangefeedEndToEndTest.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.broker.capture.TestPostgres;
import dev.sluice.broker.cli.AdminClient;
import dev.sluice.broker.testing.RunningBroker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue #16, case 1: tables dropped (and one re-created under its name) while a hosted changefeed is
 * paused. The resumed changefeed applies the dropped tables' last rows and their DROPs, from their own
 * checkpoints, before the new table's CREATE, in both apply modes. (Failed before with {@code column "w" of
 * relation "t" does not exist}.)
 */
class DropsWhileStoppedTest {

  @ParameterizedTest
  @ValueSource(strings = {"transaction", "table"})
  void tablesDroppedWhilePausedAreDroppedDownstreamAndARecreatedOneFollowsItsNewShape(String mode, @TempDir Path dir)
      throws Exception {
    try (TestPostgres down = TestPostgres.start();
         RunningBroker rb = RunningBroker.start(dir.resolve("broker"), ChangefeedConfig.defaults()
             .withProgressInterval(Duration.ofMillis(100)), "CREATE SCHEMA rep")) {
      TestPostgres up = rb.upstream();
      AdminClient admin = rb.admin();
      assertThat(admin.send("POST", "/api/v1/changefeeds", new JsonObject().put("id", "rep")
          .put("include", new JsonArray().add("rep.*"))
          .put("sink_uri", "jdbc:postgresql://127.0.0.1:" + down.port() + "/postgres?user=postgres")
          .put("options", new JsonObject().put("table_poll_interval_ms", 100).put("apply_mode", mode))).status())
          .isEqualTo(201);
      up.txn("CREATE TABLE rep.t (id int PRIMARY KEY, v text)", "CREATE TABLE rep.gone (id int PRIMARY KEY, v text)");
      up.txn("INSERT INTO rep.t VALUES (1, 'old'), (2, 'old')", "INSERT INTO rep.gone VALUES (1, 'a')");
      long applied = up.currentLsn();
      awaitCheckpoint(admin, applied);
      assertThat(rows(down, "rep.gone")).containsExactly("id=1|v=a");

      assertThat(admin.send("POST", "/api/v1/changefeeds/rep/pause", null).status()).isEqualTo(200);
      up.txn("INSERT INTO rep.gone VALUES (2, 'x')");
      up.txn("DROP TABLE rep.gone");
      up.txn("INSERT INTO rep.t VALUES (3, 'x')");
      up.txn("DROP TABLE rep.t");
      up.txn("CREATE TABLE rep.t (id int PRIMARY KEY, w int)");
      up.txn("INSERT INTO rep.t VALUES (10, 10)");
      long last = up.currentLsn();
      rb.awaitResolved(last);
      assertThat(admin.send("POST", "/api/v1/changefeeds/rep/resume", null).status()).isEqualTo(200);

      awaitCheckpoint(admin, last);
      JsonObject cf = admin.send("GET", "/api/v1/changefeeds/rep", null).json();
      assertThat(cf.getString("state")).as(cf.encodePrettily()).isEqualTo("NORMAL");
      assertThat(down.queryLong("SELECT count(*) FROM pg_class WHERE oid = to_regclass('rep.gone')")).isZero();
      assertThat(rows(down, "rep.t")).containsExactly("id=10|w=10");
    }
  }

  private static void awaitCheckpoint(AdminClient admin, long ts) {
    await().atMost(Duration.ofSeconds(60)).until(() -> {
      JsonObject cf = admin.send("GET", "/api/v1/changefeeds/rep", null).json();
      if ("FAILED".equals(cf.getString("state"))) {
        throw new AssertionError("changefeed FAILED: " + cf.getJsonObject("error").encode());
      }
      return cf.getLong("checkpoint_ts", 0L) >= ts;
    });
  }
}
