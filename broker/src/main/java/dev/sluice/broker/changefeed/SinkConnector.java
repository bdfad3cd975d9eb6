package dev.sluice.broker.changefeed;

import dev.sluice.dispatcher.sink.Sink;

/**
 * Opens a changefeed's sink from its URI and removes the sink's own checkpoint when a changefeed is
 * deleted without {@code keep_meta}. {@link StandardSinkConnector} is the real one; tests decorate it
 * to hold or fail a cleanup at a chosen moment.
 *
 * <pre>{@code
 * try (Sink sink = connector.open(SinkUri.parse(uri), "orders", ChangefeedOptions.defaults())) { ... }
 * }</pre>
 */
public interface SinkConnector {

  /**
   * Opens the sink of changefeed {@code changefeedId}, reading its stored checkpoint.
   *
   * @throws dev.sluice.api.error.TransientException when the target cannot be reached now
   */
  Sink open(SinkUri uri, String changefeedId, ChangefeedOptions options);

  /**
   * Removes what the sink keeps of {@code changefeedId}'s progress (JDBC: its rows in
   * {@code sluice_checkpoint} and {@code sluice_table_checkpoint}; JSON lines file: the
   * {@code .checkpoint} side file). The rows and lines already written are never touched. Idempotent.
   *
   * @throws dev.sluice.api.error.TransientException when the target cannot be reached now
   */
  void dropCheckpoint(SinkUri uri, String changefeedId);
}
