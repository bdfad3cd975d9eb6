package dev.sluice.it;

import dev.sluice.dispatcher.SluiceClient;
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

  private LocalChangefeed(ChangefeedSetup setup) {
    this.client = SluiceClient.connect(setup.clientConfig(), meters);
    this.sink = new GatedSink(JdbcUpsertSink.open(setup.sinkConfig()));
    this.runtime = ChangefeedRuntime.start(client, setup.definition(), sink);
  }

  public static LocalChangefeed start(ChangefeedSetup setup) {
    return new LocalChangefeed(setup);
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
