package dev.sluice.broker.changefeed;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.TransientException;
import dev.sluice.api.secret.Redactor;
import io.vertx.core.Vertx;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The blocking work the supervisor decides: starting a runtime, stopping it, and a deletion's
 * cleanup. Each runs as a task on the changefeed's {@link FeedLane} and reports its outcome through
 * {@link Reports} (which hands it back to the supervisor's thread); nothing here decides anything.
 */
final class FeedWork {

  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(FeedWork.class);

  /** Outcomes, delivered from worker threads. */
  interface Reports {
    void runtimeEnded(String id, long generation, long runId, Throwable error);

    void stopped(String id, long generation, FeedCheckpoint reached);

    void cleanupEnded(String id, long generation, Throwable error);
  }

  private final Vertx vertx;
  private final SinkConnector sinks;
  private final HostBroker host;
  private final ChangefeedConfig config;
  private final Reports reports;

  FeedWork(Vertx vertx, SinkConnector sinks, HostBroker host, ChangefeedConfig config, Reports reports) {
    this.vertx = vertx;
    this.sinks = sinks;
    this.host = host;
    this.config = config;
    this.reports = reports;
  }

  /**
   * Starts run {@code runId} of {@code r} from its checkpoint (or what a stop of its generation recorded),
   * its sink writing with fencing token {@code token}.
   */
  void start(FeedLane lane, ChangefeedRecord r, long runId, long token) {
    String id = r.id();
    long gen = r.generation();
    lane.submit(() -> {
      try {
        stopLeftover(lane, id);
        HostedRuntime run = HostedRuntime.start(vertx, sinks, id, gen, runId, r.spec(),
            r.checkpoint().max(lane.stoppedAt(gen)), host.grpcAddress(), host.clientSecurity(), token);
        lane.runtime(run);
        run.completion().whenComplete((v, e) -> {
          if (e != null) {
            reports.runtimeEnded(id, gen, runId, e instanceof CompletionException && e.getCause() != null
                ? e.getCause() : e);
          }
        });
      } catch (RuntimeException | LinkageError e) {
        reports.runtimeEnded(id, gen, runId, e);   // a missing class too: never leave NORMAL without a runtime
      }
    });
  }

  /** Stops the lane's runtime; a runtime that does not stop stays on the lane for the next task to retry. */
  void stop(FeedLane lane, String id) {
    lane.submit(() -> {
      try {
        stopLeftover(lane, id);
      } catch (RuntimeException e) {
        log.atError().addKeyValue("changefeedId", id).setCause(Redactor.scrub(e))
            .log("changefeed runtime did not stop; the next start or cleanup tries again");
      }
    });
  }

  /**
   * The cleanup of {@code r}'s generation: stop its runtime, wait until this broker holds none of its
   * dispatchers (when it runs on this broker), and without keep_meta remove the sink's checkpoint.
   */
  void cleanup(FeedLane lane, ChangefeedRecord r) {
    String id = r.id();
    long gen = r.generation();
    ChangefeedSpec spec = r.spec();
    DeleteOptions options = r.deletion().options();
    lane.submit(() -> {
      Throwable error = null;
      try {
        stopLeftover(lane, id);
        if (spec.brokers().isEmpty()) {
          awaitNoDispatchers(id);
        }
        if (!options.keepMeta()) {
          sinks.dropCheckpoint(spec.sink(), id);
        }
      } catch (RuntimeException | LinkageError e) {
        error = e;
      }
      reports.cleanupEnded(id, gen, error);
    });
  }

  /** Stops the lane's runtime, if any, and reports what it reached (lane tasks only). */
  private void stopLeftover(FeedLane lane, String id) {
    HostedRuntime run = lane.runtime();
    if (run != null) {
      FeedCheckpoint reached = run.stop(config.stopTimeout());
      lane.runtime(null);
      lane.recordStop(run.generation(), reached);
      reports.stopped(id, run.generation(), reached);
    }
  }

  /** Waits until this broker holds no dispatcher of {@code id} (lane tasks only). */
  private void awaitNoDispatchers(String id) {
    long deadline = System.nanoTime() + config.stopTimeout().toNanos();
    long left = -1;
    while (System.nanoTime() - deadline < 0) {
      try {
        left = host.dispatchersOf(id).toCompletableFuture().get(config.stopTimeout().toMillis(), TimeUnit.MILLISECONDS);
        if (left == 0) {
          return;
        }
        Thread.sleep(50);   // the REMOVE acks are in flight; a short poll keeps this simple
      } catch (ExecutionException | TimeoutException e) {
        throw new TransientException(ErrorCode.SHUTTING_DOWN, "cannot list the dispatchers of changefeed \"" + id
            + "\": " + e, e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new TransientException(ErrorCode.SHUTTING_DOWN, "interrupted while deleting changefeed \"" + id + "\"", e);
      }
    }
    throw new TransientException(ErrorCode.SHUTTING_DOWN, left + " dispatchers of changefeed \"" + id + "\" are still"
        + " registered on this broker after " + config.stopTimeout().toMillis() + " ms");
  }
}
