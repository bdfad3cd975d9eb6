package dev.sluice.broker.changefeed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.broker.SluiceCommand;
import dev.sluice.broker.capture.TestPostgres;
import dev.sluice.broker.cli.AdminClient;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #5's exactly-once case: the broker that hosts the changefeed runs as a child JVM
 * ({@code sluice server}) and is killed with SIGKILL three times while every upstream transaction
 * increments a counter. A trigger downstream counts how often each row was written: after the
 * checkpoint passes the last commit, every counter equals its upstream value and was written exactly
 * that many times (a replayed transaction would show as an extra write). Slow: about a minute.
 */
@Tag("slow")
class ChangefeedExactlyOnceKillTest {

  private static final int COUNTERS = 10;
  private static final int KILLS = 3;

  @Test
  void countersMatchAndNoTransactionIsAppliedTwiceAcrossKills(@TempDir Path dir) throws Exception {
    try (TestPostgres up = TestPostgres.start(); TestPostgres down = TestPostgres.start()) {
      up.exec("CREATE TABLE public.counters (id int PRIMARY KEY, n bigint NOT NULL)",
          "INSERT INTO public.counters SELECT g, 0 FROM generate_series(1, " + COUNTERS + ") g");
      down.exec("CREATE TABLE public.counters (id int PRIMARY KEY, n bigint NOT NULL)",
          "CREATE TABLE public.applied (id int PRIMARY KEY, times bigint NOT NULL)",
          "CREATE FUNCTION count_apply() RETURNS trigger AS $$ BEGIN INSERT INTO public.applied VALUES (NEW.id, 1)"
              + " ON CONFLICT (id) DO UPDATE SET times = public.applied.times + 1; RETURN NEW; END $$ LANGUAGE plpgsql",
          "CREATE TRIGGER counters_applied AFTER INSERT OR UPDATE ON public.counters FOR EACH ROW"
              + " EXECUTE FUNCTION count_apply()",
          // the sink applies as a replica (session_replication_role), where only ALWAYS triggers fire
          "ALTER TABLE public.counters ENABLE ALWAYS TRIGGER counters_applied");
      int adminPort = freePort();
      List<String> args = List.of("server", "--node-id", "kill", "--data-dir", dir.resolve("broker").toString(),
          "--upstream", up.jdbcUrl(), "--upstream-user", "postgres", "--grpc-port", "0",
          "--admin-port", Integer.toString(adminPort), "--heartbeat-interval", "PT0.1S");
      AdminClient admin = AdminClient.of("http://127.0.0.1:" + adminPort, Duration.ofSeconds(10));

      Process broker = startBroker(args, dir, 0, admin);
      try {
        JsonObject body = new JsonObject().put("id", "counters").put("include", new JsonArray().add("public.counters"))
            .put("initial_load", "none")   // counts the changes' writes only (ChangefeedInitialLoadTest: the READs)
            .put("sink_uri", "jdbc:postgresql://127.0.0.1:" + down.port() + "/postgres?user=postgres");
        assertThat(admin.send("POST", "/api/v1/changefeeds", body).status()).isEqualTo(201);

        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong committed = new AtomicLong();
        CompletableFuture<Void> workload = CompletableFuture.runAsync(() -> increment(up, stop, committed));
        for (int kill = 1; kill <= KILLS; kill++) {
          long applied = downstreamSum(down);
          // kill while the changefeed is applying: downstream must have moved since the last start
          await().atMost(Duration.ofSeconds(90)).until(() -> downstreamSum(down) > applied + 100);
          broker.destroyForcibly();   // SIGKILL: no shutdown hook, no flush
          assertThat(broker.waitFor(30, TimeUnit.SECONDS)).isTrue();
          broker = startBroker(args, dir, kill, admin);
        }
        stop.set(true);
        workload.get(60, TimeUnit.SECONDS);
        long last = up.currentLsn();
        assertThat(committed.get()).isGreaterThan(400);

        await().atMost(Duration.ofSeconds(120)).until(() ->
            admin.send("GET", "/api/v1/changefeeds/counters", null).json().getLong("checkpoint_ts", 0L) >= last);
        List<String> upstream = HostedChangefeedEndToEndTest.rows(up, "public.counters");
        assertThat(HostedChangefeedEndToEndTest.rows(down, "public.counters")).isEqualTo(upstream);
        for (int id = 1; id <= COUNTERS; id++) {
          long n = up.queryLong("SELECT n FROM public.counters WHERE id = " + id);
          long times = down.queryLong("SELECT coalesce(max(times), 0) FROM public.applied WHERE id = " + id);
          assertThat(times).as("writes of counter " + id + " (upstream n = " + n + ")").isEqualTo(n);
        }
        assertThat(downstreamSum(down)).isEqualTo(committed.get());
      } finally {
        broker.destroy();
        broker.waitFor(30, TimeUnit.SECONDS);
        broker.destroyForcibly();
      }
    }
  }

  /** One counter incremented per transaction, round robin, until told to stop (bounded). */
  private static void increment(TestPostgres up, AtomicBoolean stop, AtomicLong committed) {
    try (Connection c = up.connect(); Statement s = c.createStatement()) {
      for (long i = 0; !stop.get() && i < 200_000; i++) {
        s.execute("UPDATE public.counters SET n = n + 1 WHERE id = " + (1 + i % COUNTERS));
        committed.incrementAndGet();
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static long downstreamSum(TestPostgres down) {
    return down.queryLong("SELECT coalesce(sum(n), 0) FROM public.counters");
  }

  private static Process startBroker(List<String> args, Path dir, int run, AdminClient admin) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"),
        SluiceCommand.class.getName()));
    cmd.addAll(args);
    Path log = dir.resolve("broker-" + run + ".log");
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    await().atMost(Duration.ofSeconds(90)).until(() -> {
      if (!p.isAlive()) {
        throw new IllegalStateException("the broker exited with " + p.exitValue() + ": " + Files.readString(log));
      }
      try {
        return admin.send("GET", "/readyz", null).status() == 200;
      } catch (AdminClient.AdminUnreachableException e) {
        return false;
      }
    });
    return p;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
