package dev.sluice.it.bench;

import dev.sluice.broker.cli.AdminClient;
import dev.sluice.dispatcher.changefeed.ApplyMode;
import dev.sluice.it.BrokerProcess;
import dev.sluice.it.ChangefeedSetup;
import dev.sluice.it.ConsistencyChecker;
import dev.sluice.it.LocalChangefeed;
import dev.sluice.it.PostgresServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The two apply modes' throughput ({@link ApplyMode}): an upstream load of transactions that each write
 * {@value #ROWS_PER_TABLE} rows into each of {@value #TABLES} tables is captured first; then a changefeed
 * (the library's runtime in this JVM, a JDBC sink into a fresh PostgreSQL) applies it from before the
 * load, once per mode, and the rate is the rows over the time from its start until its checkpoint passes
 * the load's last commit. Both modes pay the same subscription, scan and network; the difference is the
 * apply: whole upstream transactions in commit order across tables, or each table as it arrives.
 */
final class ApplyModeBench {

  static final int TABLES = 4;
  static final int ROWS_PER_TABLE = 5;

  private final Path work;
  private final Path logs;

  ApplyModeBench(Path work, Path logs) {
    this.work = work;
    this.logs = logs;
  }

  List<Figure> run(int transactions, int runs) throws Exception {
    long rows = (long) transactions * TABLES * ROWS_PER_TABLE;
    List<Double> txnMode = new ArrayList<>();
    List<Double> tableMode = new ArrayList<>();
    try (PostgresServer up = PostgresServer.upstream();
         BrokerProcess broker = BrokerProcess.start("apply-mode-broker",
             BrokerProcess.options(Files.createTempDirectory(work, "apply-mode"), up).withJvmArgs(List.of("-Xmx1g")),
             logs)) {
      long startTs = load(up, transactions);
      long last = up.currentLsn();
      awaitCaptured(broker, last);   // the runs measure the apply, not capture
      for (int run = 1; run <= runs; run++) {
        for (ApplyMode mode : List.of(ApplyMode.TRANSACTION, ApplyMode.TABLE)) {
          double rate = rows / apply(broker, startTs, last, mode, run);
          (mode == ApplyMode.TRANSACTION ? txnMode : tableMode).add(rate);
          System.out.printf(Locale.ROOT, "apply mode %s, run %d: %,.0f rows/s%n", mode, run, rate);
        }
      }
    }
    String how = String.format(Locale.ROOT, "%,d upstream transactions of %d rows (%d tables x %d rows of ~60 bytes),"
        + " captured before the changefeed starts; a ChangefeedRuntime in the harness JVM (default batch of 500"
        + " transactions, JDBC batches of 500) applies them from before the load into a fresh PostgreSQL; rows over the"
        + " time from its start until its checkpoint passes the last commit; the broker, both PostgreSQL servers and"
        + " the harness share the 2 cores", transactions, TABLES * ROWS_PER_TABLE, TABLES, ROWS_PER_TABLE);
    return List.of(
        new Figure("changefeed_txn_mode_rows_per_s", "changefeed apply rate, transaction mode (whole upstream "
            + "transactions across tables)", Stats.median(txnMode), "rows/s", Double.NaN, true, Double.NaN, runs, how),
        new Figure("changefeed_table_mode_rows_per_s", "changefeed apply rate, table mode (each table on its own)",
            Stats.median(tableMode), "rows/s", Double.NaN, true, Double.NaN, runs, how));
  }

  /** Creates the tables and writes the load; returns a ts before it. */
  private static long load(PostgresServer up, int transactions) throws SQLException {
    try (Connection c = up.connect(); Statement s = c.createStatement()) {
      for (int t = 0; t < TABLES; t++) {
        s.execute("CREATE TABLE public.apply_" + t + " (id bigint PRIMARY KEY, account int NOT NULL, amount bigint"
            + " NOT NULL, note text)");
      }
      long startTs = up.currentLsn();
      c.setAutoCommit(false);
      for (int i = 0; i < transactions; i++) {
        long first = (long) i * ROWS_PER_TABLE;
        for (int t = 0; t < TABLES; t++) {
          s.execute("INSERT INTO public.apply_" + t + " SELECT g, g % 1000, g * 3, 'transfer ' || g FROM"
              + " generate_series(" + first + ", " + (first + ROWS_PER_TABLE - 1) + ") g");
        }
        c.commit();
      }
      return startTs;
    }
  }

  /** Seconds a changefeed in {@code mode} takes from its start until its checkpoint passes {@code last}. */
  private static double apply(BrokerProcess broker, long startTs, long last, ApplyMode mode, int run) {
    try (PostgresServer down = PostgresServer.downstream()) {
      String id = "apply-" + mode.name().toLowerCase(Locale.ROOT) + "-" + run;
      ChangefeedSetup setup = new ChangefeedSetup(List.of(broker.grpcAddress()), down.jdbcUrl(), id,
          List.of("public.apply_*"), startTs, 0);
      long t0 = System.nanoTime();
      try (LocalChangefeed cf = LocalChangefeed.start(setup, d -> d.withApplyMode(mode))) {
        ConsistencyChecker.awaitCheckpoint(down, id, last, Duration.ofMinutes(10));
        return (System.nanoTime() - t0) / 1e9;
      }
    }
  }

  private static void awaitCaptured(BrokerProcess broker, long ts) {
    AdminClient admin = AdminClient.of(broker.adminUrl());
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    while (admin.send("GET", "/api/v1/dispatchers?limit=1", null).json().getLong("resolved_ts") < ts) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the broker did not capture the load within 5 min; see " + broker.log());
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));   // poll interval of the wait
    }
  }
}
