package dev.sluice.broker.cli;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.SluiceException;
import dev.sluice.dispatcher.ChangeListener;
import dev.sluice.dispatcher.ClientConfig;
import dev.sluice.dispatcher.DdlChange;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.SnapshotMark;
import dev.sluice.dispatcher.SnapshotOutcome;
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
 * or {@code --limit} rows. A {@code kcat} for CDC. With {@code --snapshot} the table's existing rows come
 * first ({@code "op":"read"}, merged with the changes), with a progress bar on stderr.
 *
 * <pre>{@code
 * sluice tail --table public.orders                 # from now
 * sluice tail --table public.orders --from 0 --limit 100 | jq .after
 * sluice tail --table public.orders --snapshot > orders.jsonl   # every row, then the changes
 * sluice tail --table app.orders --broker broker-1:8300 --tls-ca ca.pem --token-file ~/.sluice/token
 * }</pre>
 */
@Command(name = "tail", mixinStandardHelpOptions = true,
    description = {"Print the live change stream of a table as JSON lines (row changes and DDL) until Ctrl-C.",
        "With --snapshot, the table's existing rows first (\"op\":\"read\"), a progress bar on stderr."},
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

  @Option(names = "--snapshot", description = "First the rows the table holds now (\"op\":\"read\"), read online and"
      + " merged with the changes; progress on stderr.")
  boolean snapshot;

  @Option(names = "--connect-timeout", defaultValue = "15s", paramLabel = "DURATION", converter = DurationConverter.class,
      description = "How long to wait for the stream to start, such as 15s, 500ms or ISO-8601 (default: ${DEFAULT-VALUE}).")
  Duration connectTimeout;

  @picocli.CommandLine.Mixin
  ClientSecurityOptions security;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws InterruptedException {
    // the dispatcher's own warning repeats the error this command prints: one line, not two
    ClientLogging.warningsToStderr("dev.sluice.dispatcher.collector.DispatcherSession");
    PrintWriter out = spec.commandLine().getOut();   // row data: printed as it is
    PrintWriter err = RedactingWriter.around(spec.commandLine().getErr());
    ClientConfig config;
    try {
      config = ClientConfig.of(broker).withCollectorId("sluice-tail-" + UUID.randomUUID().toString().substring(0, 8))
          .withSecurity(security.security(false));
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
        String why = e.getCause() != null ? String.valueOf(e.getCause().getMessage()) : String.valueOf(e);
        boolean denied = why.startsWith("UNAUTHENTICATED") || why.startsWith("PERMISSION_DENIED");
        err.println("sluice tail: " + (denied ? "the broker at " + broker + " refused: " : "cannot reach the broker at "
            + broker + ": ") + why);
        err.flush();
        return denied ? ExitCode.DENIED : ExitCode.SERVER;
      }
      JsonLinesSink sink = JsonLinesSink.toStream(new LineWriter(out), null, "tail");
      SnapshotProgressLine progress = new SnapshotProgressLine(err, table, System.console() != null);
      SubscriptionHandle[] handle = new SubscriptionHandle[1];
      ChangeListener listener = new ChangeListener() {
        @Override
        public void onTransaction(Transaction txn) {
          if (done.isDone()) {
            return;
          }
          sink.apply(List.of(txn), txn.commitTs());
          handle[0].acknowledge(txn.checkpoint());
          SnapshotMark mark = txn.snapshot();
          if (mark != null) {
            progress.chunk(mark);
          }
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
        public void onSnapshotComplete(SnapshotOutcome outcome) {
          progress.ended(outcome);
        }

        @Override
        public void onError(SluiceException error) {
          fail(done, error, err);
        }
      };
      Subscription sub = Subscription.table(table).from(start).creditGroup(config.collectorId());
      handle[0] = client.subscribe(snapshot ? sub.withSnapshot() : sub, listener);
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

  /** Ends the command with the exit code of {@code error}, printing it once, in one line. */
  private void fail(CompletableFuture<Integer> done, SluiceException error, PrintWriter err) {
    int code = error.code() == ErrorCode.UNKNOWN_TABLE || error.code() == ErrorCode.TABLE_DROPPED ? ExitCode.NOT_FOUND
        : error.code() == ErrorCode.PERMISSION_DENIED || error.code() == ErrorCode.UNAUTHENTICATED ? ExitCode.DENIED
        : error.code().kind() == ErrorCode.Kind.REJECTED ? ExitCode.USAGE : ExitCode.SERVER;
    if (done.complete(code)) {
      err.println("sluice tail: " + describe(error));
      err.flush();
    }
  }

  private String describe(SluiceException error) {
    String at = from == null ? "" : " at ts " + from;
    return switch (error.code()) {
      case UNKNOWN_TABLE -> "table " + table + " is unknown to the broker at " + broker + at + " (names are"
          + " schema.table, case-sensitive); list the tables it knows with `sluice tables` (its admin API, --server)";
      case TABLE_DROPPED -> "table " + table + " was dropped" + (from == null ? "" : " at or before ts " + from)
          + " on the broker at " + broker + "; start after it was created again, or list the tables with"
          + " `sluice tables`";
      default -> error.code() + ": " + error.getMessage();
    };
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
