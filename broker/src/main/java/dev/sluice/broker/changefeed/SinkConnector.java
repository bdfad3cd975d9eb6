package dev.sluice.broker.changefeed;

import dev.sluice.dispatcher.sink.Sink;
import java.time.Duration;

/**
 * Opens a changefeed's sink from its URI, checks a new sink works before a changefeed is created with
 * it, and removes the sink's own checkpoint when a changefeed is deleted without {@code keep_meta}.
 * {@link StandardSinkConnector} is the real one; tests decorate it to hold or fail a cleanup at a
 * chosen moment.
 *
 * <pre>{@code
 * try (Sink sink = connector.open(SinkUri.parse(uri), "orders", ChangefeedOptions.defaults(), token)) { ... }
 * }</pre>
 */
public interface SinkConnector {

  /**
   * Opens the sink of changefeed {@code changefeedId}, reading its stored checkpoint. A sink that can
   * (JDBC) claims {@code fenceToken} and refuses to write once a higher one was claimed; the others
   * ignore it (see docs/CLUSTER.md for what they promise).
   *
   * @throws dev.sluice.api.error.TransientException when the target cannot be reached now
   * @throws dev.sluice.dispatcher.sink.FencedOutException when a newer owner holds a higher token
   */
  Sink open(SinkUri uri, String changefeedId, ChangefeedOptions options, long fenceToken);

  /**
   * Checks, within {@code timeout}, that a sink at {@code uri} can work now: the target answers, takes
   * the credentials and has the database; a file can be written. Blocks. The default accepts every
   * sink (a connector that cannot check, such as a test double).
   *
   * @throws SinkCheckFailedException saying what failed (redacted)
   */
  default void check(SinkUri uri, ChangefeedOptions options, Duration timeout) {
  }

  /**
   * Removes what the sink keeps of {@code changefeedId}'s progress (JDBC: its rows in
   * {@code sluice_checkpoint} and {@code sluice_table_checkpoint}; JSON lines file: the
   * {@code .checkpoint} side file). The rows and lines already written are never touched. Idempotent.
   *
   * @throws dev.sluice.api.error.TransientException when the target cannot be reached now
   */
  void dropCheckpoint(SinkUri uri, String changefeedId);
}
