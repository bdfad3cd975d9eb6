package dev.sluice.it;

import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.changefeed.ChangefeedDefinition;
import dev.sluice.dispatcher.changefeed.ChangefeedRuntime;
import dev.sluice.dispatcher.changefeed.ChangefeedStatus;
import dev.sluice.dispatcher.sink.JdbcUpsertSink;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * A changefeed in this JVM, for scenarios that observe it: the dispatcher library's
 * {@link ChangefeedRuntime} with a {@link JdbcUpsertSink} behind a {@link GatedSink}, and the client's
 * meters (resets by reason, reconnects) in a registry the test can read.
 *
 * <pre>{@code
 * try (LocalChangefeed cf = LocalChangefeed.start(ChangefeedSetup.of(proxy.address(), down.jdbcUrl(), "cf", "public.*"))) {
 *   cf.sink().stall();
 *   double resets = cf.meters().find("sluice.dispatcher.resets").counters().stream().mapToDouble(c -> c.count()).sum();
 * }
 * }</pre>
 */
public final class LocalChangefeed implements AutoCloseable {

  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final SluiceClient client;
  private final GatedSink sink;
  private final ChangefeedRuntime runtime;

  private LocalChangefeed(ChangefeedSetup setup, java.util.function.UnaryOperator<ChangefeedDefinition> tweak) {
    this.client = SluiceClient.connect(setup.clientConfig(), meters);
    this.sink = new GatedSink(JdbcUpsertSink.open(setup.sinkConfig()));
    this.runtime = ChangefeedRuntime.start(client, tweak.apply(setup.definition()), sink);
  }

  public static LocalChangefeed start(ChangefeedSetup setup) {
    return new LocalChangefeed(setup, d -> d);
  }

  /** A changefeed whose definition {@code tweak} changes (e.g. a longer table poll interval). */
  public static LocalChangefeed start(ChangefeedSetup setup, java.util.function.UnaryOperator<ChangefeedDefinition> tweak) {
    return new LocalChangefeed(setup, tweak);
  }

  /**
   * Waits until the changefeed follows every table of {@code tables} ("schema.table") and has applied
   * each up to {@code ts}: per table, unlike the changefeed checkpoint, which counts only the tables it
   * already follows (see {@code CheckpointAheadOfNewTableIT}).
   */
  public void awaitApplied(java.util.Collection<String> tables, long ts, java.time.Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      java.util.Map<String, Long> applied = new java.util.HashMap<>();
      for (ChangefeedStatus.TableStatus t : runtime.status().tables()) {
        applied.put(t.table(), t.checkpoint().ts());
      }
      if (tables.stream().allMatch(t -> applied.getOrDefault(t, -1L) >= ts)) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("changefeed did not apply " + tables + " up to " + ts + " within " + timeout
            + "; applied: " + applied + ", status: " + runtime.status().state() + " " + runtime.status().error());
      }
      java.util.concurrent.locks.LockSupport.parkNanos(100_000_000L);   // poll interval of the wait
    }
  }

  public SluiceClient client() {
    return client;
  }

  public GatedSink sink() {
    return sink;
  }

  public ChangefeedRuntime runtime() {
    return runtime;
  }

  public ChangefeedStatus status() {
    return runtime.status();
  }

  public SimpleMeterRegistry meters() {
    return meters;
  }

  /** Sum of a counter over all its tags (e.g. {@code sluice.dispatcher.resets}), optionally one tag value. */
  public double count(String meter, String tag, String value) {
    var search = meters.find(meter);
    if (tag != null) {
      search = search.tag(tag, value);
    }
    return search.counters().stream().mapToDouble(c -> c.count()).sum();
  }

  @Override
  public void close() {
    sink.release();
    runtime.close();
    client.close();
    sink.close();
  }
}
