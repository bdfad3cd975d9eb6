package dev.sluice.broker.changefeed;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.TransientException;
import dev.sluice.dispatcher.ClientConfig;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.changefeed.ChangefeedDefinition;
import dev.sluice.dispatcher.changefeed.ChangefeedRuntime;
import dev.sluice.dispatcher.changefeed.ChangefeedStatus;
import dev.sluice.dispatcher.sink.TableSnapshot;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One run of one generation of a hosted changefeed: its sink, its own client (one collector stream)
 * and the dispatcher library's {@link ChangefeedRuntime}. Started and stopped by the supervisor's
 * lane of that changefeed, never concurrently.
 *
 * <pre>{@code
 * HostedRuntime run = HostedRuntime.start(vertx, sinks, "orders", 3, 17, spec, kept, "127.0.0.1:8300",
 *     ClientSecurity.none(), token);
 * FeedCheckpoint last = run.stop(Duration.ofSeconds(15));
 * }</pre>
 */
final class HostedRuntime {

  private final String id;
  private final long generation;
  private final long runId;
  private final SluiceClient client;
  private final ResumingSink sink;
  private final ChangefeedRuntime runtime;
  private final FeedCheckpoint resumedFrom;

  private HostedRuntime(String id, long generation, long runId, SluiceClient client, ResumingSink sink,
      ChangefeedRuntime runtime, FeedCheckpoint resumedFrom) {
    this.id = id;
    this.generation = generation;
    this.runId = runId;
    this.client = client;
    this.sink = sink;
    this.runtime = runtime;
    this.resumedFrom = resumedFrom;
  }

  /**
   * Opens the sink, connects to the brokers ({@code localBroker} when the spec names none) and starts
   * the runtime from the later of the spec's start ts, the sink's checkpoint and {@code resumeFrom}. The sink
   * writes fenced by {@code token}, this node's assignment of the changefeed.
   */
  static HostedRuntime start(Vertx vertx, SinkConnector sinks, String id, long generation, long runId,
      ChangefeedSpec spec, FeedCheckpoint resumeFrom, String localBroker,
      dev.sluice.dispatcher.ClientSecurity security, long token) {
    ResumingSink sink = new ResumingSink(sinks.open(spec.sink(), id, spec.options(), token), resumeFrom);
    SluiceClient client = null;
    try {
      List<String> brokers = spec.brokers().isEmpty() ? List.of(localBroker) : spec.brokers();
      // a private registry: the collector's meters are tagged by collector id and never removed
      client = SluiceClient.connect(vertx, ClientConfig.of(brokers.toArray(String[]::new))
          .withCollectorId("changefeed-" + id + "-g" + generation).withSecurity(security), new SimpleMeterRegistry());
      ChangefeedDefinition definition = ChangefeedDefinition.of(id, spec.filter(), spec.startTs())
          .withTablePollInterval(Duration.ofMillis(spec.options().tablePollIntervalMs()))
          .withMaxBatchTransactions(spec.options().maxBatchTransactions())
          .withApplyMode(spec.options().applyMode()).withInitialLoad(spec.initialLoad());
      ChangefeedRuntime runtime = ChangefeedRuntime.start(client, definition, sink);
      return new HostedRuntime(id, generation, runId, client, sink, runtime, resumeFrom);
    } catch (RuntimeException e) {
      if (client != null) {
        client.close();
      }
      sink.close();
      throw e;
    }
  }

  long generation() {
    return generation;
  }

  long runId() {
    return runId;
  }

  ChangefeedStatus status() {
    return runtime.status();
  }

  /** Asks the runtime to act on its tables' snapshots; completes with the tables it acted on. */
  CompletionStage<List<String>> snapshot(SnapshotAction action, List<String> tables) {
    return switch (action) {
      case START -> runtime.snapshot(tables);
      case PAUSE -> runtime.pauseSnapshot(tables);
      case RESUME -> runtime.resumeSnapshot(tables);
      case CANCEL -> runtime.cancelSnapshot(tables);
    };
  }

  /** Completes when the runtime ends; fails with the error that stopped it. */
  CompletionStage<Void> completion() {
    return runtime.completion();
  }

  /**
   * Stops the runtime without flushing what it holds but has not applied, removes its dispatchers
   * (REMOVE, then the stream closes) and closes the sink.
   *
   * @return the progress the sink durably holds (at least what this run resumed from)
   * @throws TransientException when the runtime did not stop within {@code timeout}: its sink may
   *     still be written, so nothing that depends on it having stopped may proceed
   */
  FeedCheckpoint stop(Duration timeout) {
    runtime.close();
    try {
      runtime.completion().toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      // it had failed before; stopped all the same
    } catch (TimeoutException e) {
      throw new TransientException(ErrorCode.SINK_UNAVAILABLE, "the runtime of changefeed \"" + id + "\" did not stop"
          + " within " + timeout.toMillis() + " ms (its sink call is still running)", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TransientException(ErrorCode.SHUTTING_DOWN, "interrupted while stopping changefeed \"" + id + "\"", e);
    }
    // newest last: the sink's snapshots (durable, with a cursor) over the status's, over what the run resumed from
    FeedCheckpoint reached = resumedFrom.max(fromStatus(runtime.status()))
        .max(FeedCheckpoint.of(sink.ownCheckpoint()));
    client.close();
    sink.close();
    return reached;
  }

  /**
   * What the runtime reports as applied (the JSON-to-stdout sink keeps no checkpoint of its own), with each
   * table's snapshot state, rows and cursor as the runtime last sampled them from the sink (once a second), so a
   * sink without progress of its own (stdout) continues a snapshot from about its last chunk, not the start.
   */
  static FeedCheckpoint fromStatus(ChangefeedStatus status) {
    List<FeedCheckpoint.TableCheckpoint> tables = status.tables().stream()
        .map(t -> new FeedCheckpoint.TableCheckpoint(t.tableId(), t.table(), t.checkpoint(),
            t.phase() == ChangefeedStatus.TablePhase.ENDED ? Math.max(1, t.checkpoint().ts()) : 0,
            t.snapshot() == null ? TableSnapshot.NONE
                : new TableSnapshot(t.snapshot().state(), t.snapshot().cursor(), t.snapshot().rowsDone(), 0)))
        .toList();
    return new FeedCheckpoint(status.checkpointTs(), tables);
  }
}
