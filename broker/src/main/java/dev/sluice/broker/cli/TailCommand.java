package dev.sluice.broker.cli;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.SluiceException;
import dev.sluice.dispatcher.ChangeListener;
import dev.sluice.dispatcher.ClientConfig;
import dev.sluice.dispatcher.DdlChange;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.dispatcher.SubscriptionHandle;
import dev.sluice.dispatcher.Transaction;
import dev.sluice.dispatcher.sink.JsonLinesSink;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sluice tail}: prints a table's live change stream, one JSON line per row change
 * ({@code table, op, commit_ts, row_seq, before, after}) and per DDL ({@code op: "ddl"}), until Ctrl-C
 * or {@code --limit} rows. A {@code kcat} for CDC.
 *
 * <pre>{@code
 * sluice tail --table public.orders                 # from now
 * sluice tail --table public.orders --from 0 --limit 100 | jq .after
 * }</pre>
 */
@Command(name = "tail", mixinStandardHelpOptions = true,
    description = "Print the live change stream of a table as JSON lines (row changes and DDL) until Ctrl-C.",
    footer = ExitCode.HELP)
public final class TailCommand implements Callable<Integer> {

  @Option(names = "--table", required = true, paramLabel = "SCHEMA.TABLE", description = "The table to follow.")
  String table;

  @Option(names = "--from", paramLabel = "TS", description = "Exclusive start ts (default: now, the broker's resolved"
      + " ts).")
  Long from;

  @Option(names = "--broker", defaultValue = "127.0.0.1:8300", paramLabel = "HOST:PORT",
      description = "Broker gRPC address (default: ${DEFAULT-VALUE}).")
  String broker;

  @Option(names = "--limit", paramLabel = "N", description = "Stop after the transaction that brings the row count"
      + " to N.")
  Long limit;

  @Option(names = "--connect-timeout", defaultValue = "PT15S", paramLabel = "DURATION",
      description = "How long to wait for the stream to start, ISO-8601 (default: ${DEFAULT-VALUE}).")
  Duration connectTimeout;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws InterruptedException {
    ClientLogging.warningsToStderr();
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    ClientConfig config;
    try {
      config = ClientConfig.of(broker).withCollectorId("sluice-tail-" + UUID.randomUUID().toString().substring(0, 8));
      Subscription.table(table);
    } catch (IllegalArgumentException e) {
      err.println("sluice tail: " + e.getMessage());
      err.flush();
      return ExitCode.USAGE;
    }
    CompletableFuture<Integer> done = new CompletableFuture<>();
    AtomicLong rows = new AtomicLong();
    try (SluiceClient client = SluiceClient.connect(config)) {
      long start;
      try {
        start = from != null ? from : client.topology().toCompletableFuture()
            .get(connectTimeout.toMillis(), TimeUnit.MILLISECONDS).getMembers(0).getResolvedTs();
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
        err.println("sluice tail: cannot reach the broker at " + broker + ": " + e);
        err.flush();
        return ExitCode.SERVER;
      }
      JsonLinesSink sink = JsonLinesSink.toStream(new LineWriter(out), null, "tail");
      SubscriptionHandle[] handle = new SubscriptionHandle[1];
      ChangeListener listener = new ChangeListener() {
        @Override
        public void onTransaction(Transaction txn) {
          if (done.isDone()) {
            return;
          }
          sink.apply(List.of(txn), txn.commitTs());
          handle[0].acknowledge(txn.checkpoint());
          if (limit != null && rows.addAndGet(txn.rows().size()) >= limit) {
            done.complete(ExitCode.OK);
          }
        }

        @Override
        public void onDdl(DdlChange ddl) {
          if (!done.isDone()) {
            sink.applyDdl(ddl, ddl.commitTs() - 1);
          }
        }

        @Override
        public void onResolved(long ts) {
          handle[0].acknowledge(ts);
        }

        @Override
        public void onError(SluiceException error) {
          fail(done, error, err);
        }
      };
      handle[0] = client.subscribe(Subscription.table(table).from(start).changefeed(config.collectorId()), listener);
      Thread stopper = new Thread(() -> done.complete(ExitCode.OK), "sluice-tail-stop");
      Runtime.getRuntime().addShutdownHook(stopper);
      try {
        handle[0].streaming().toCompletableFuture().get(connectTimeout.toMillis(), TimeUnit.MILLISECONDS);
        return done.get();
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
        if (e.getCause() instanceof SluiceException s) {
          fail(done, s, err);   // the same error reaches onError; whichever comes first answers
        }
        if (done.isDone()) {
          return done.getNow(ExitCode.SERVER);
        }
        err.println("sluice tail: the stream of " + table + " did not start within " + connectTimeout + ": " + e);
        err.flush();
        return ExitCode.SERVER;
      } finally {
        try {
          Runtime.getRuntime().removeShutdownHook(stopper);
        } catch (IllegalStateException e) {
          // the JVM is shutting down (Ctrl-C): the hook already ran
        }
        handle[0].close();
        out.flush();
      }
    }
  }

  /** Ends the command with the exit code of {@code error}, printing it once. */
  private static void fail(CompletableFuture<Integer> done, SluiceException error, PrintWriter err) {
    int code = error.code() == ErrorCode.UNKNOWN_TABLE || error.code() == ErrorCode.TABLE_DROPPED ? ExitCode.NOT_FOUND
        : error.code().kind() == ErrorCode.Kind.REJECTED ? ExitCode.USAGE : ExitCode.SERVER;
    if (done.complete(code)) {
      err.println("sluice tail: " + error.code() + ": " + error.getMessage());
      err.flush();
    }
  }

  /** Hands each complete line the sink writes to the command's writer (stdout, or a test's). */
  private static final class LineWriter extends OutputStream {
    private final PrintWriter out;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

    LineWriter(PrintWriter out) {
      this.out = out;
    }

    @Override
    public void write(int b) {
      if (b == '\n') {
        out.println(line.toString(StandardCharsets.UTF_8));
        line.reset();
      } else {
        line.write(b);
      }
    }

    @Override
    public void flush() {
      out.flush();
    }
  }
}
