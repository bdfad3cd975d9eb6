package dev.sluice.broker.changefeed;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.TransientException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * What a new sink must pass before a changefeed is recorded with it: a file sink is confined to the
 * {@link FileSinkDirectory} and must not be another changefeed's file (decided on the supervisor's
 * thread, against its records), and with {@link SinkCheck#CHECK} the sink must work now
 * ({@link SinkConnector#check}, on a worker, within the timeout).
 *
 * <pre>{@code
 * ChangefeedSpec own = admission.own("orders", spec, records.values());       // supervisor thread
 * admission.checked(own, SinkCheck.CHECK).thenCompose(s -> decideAgainAndCommit(s));
 * }</pre>
 */
final class SinkAdmission {

  private final FileSinkDirectory files;
  private final SinkConnector sinks;
  private final Duration timeout;
  private final Executor workers;

  SinkAdmission(FileSinkDirectory files, SinkConnector sinks, Duration timeout, Executor workers) {
    this.files = files;
    this.sinks = sinks;
    this.timeout = timeout;
    this.workers = workers;
  }

  FileSinkDirectory files() {
    return files;
  }

  /**
   * {@code spec} of changefeed {@code id} with its file sink confined.
   *
   * @throws InvalidChangefeedException when the file is outside the file sink directory
   * @throws SinkInUseException when a visible changefeed of {@code records} other than {@code id} writes the
   *     file, or its {@code .checkpoint}, or has it as its {@code .checkpoint}
   */
  ChangefeedSpec own(String id, ChangefeedSpec spec, Collection<ChangefeedRecord> records) {
    SinkUri sink = files.confine(spec.sink());
    if (sink.kind() == SinkUri.Kind.JSONL_FILE) {
      Path file = sink.file();
      for (ChangefeedRecord other : records) {
        if (other.id().equals(id) || !other.visible() || other.spec().sink().kind() != SinkUri.Kind.JSONL_FILE) {
          continue;
        }
        Path theirs = other.spec().sink().file().toAbsolutePath().normalize();
        if (theirs.equals(file) || theirs.equals(checkpointFileOf(file)) || file.equals(checkpointFileOf(theirs))) {
          throw new SinkInUseException(id, other.id(), file.toString());
        }
      }
    }
    return spec.withSink(sink);
  }

  /** {@code spec} once its sink passed the check (on a worker), or at once with {@link SinkCheck#SKIP}. */
  CompletableFuture<ChangefeedSpec> checked(ChangefeedSpec spec, SinkCheck check) {
    if (check == SinkCheck.SKIP) {
      return CompletableFuture.completedFuture(spec);
    }
    try {
      return CompletableFuture.supplyAsync(() -> {
        sinks.check(spec.sink(), spec.options(), timeout);
        return spec;
      }, workers);
    } catch (RejectedExecutionException e) {
      return CompletableFuture.failedFuture(new TransientException(ErrorCode.SHUTTING_DOWN, "the broker is shutting"
          + " down", e));
    }
  }

  private static Path checkpointFileOf(Path file) {
    return file.resolveSibling(file.getFileName() + ".checkpoint");
  }
}
