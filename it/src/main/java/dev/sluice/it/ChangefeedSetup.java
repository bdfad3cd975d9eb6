package dev.sluice.it;

import dev.sluice.dispatcher.ClientConfig;
import dev.sluice.dispatcher.changefeed.ChangefeedDefinition;
import dev.sluice.dispatcher.changefeed.TableFilter;
import dev.sluice.dispatcher.sink.JdbcSinkConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What a test changefeed runs: brokers (or a proxy in front of them), the downstream PostgreSQL its
 * {@code JdbcUpsertSink} writes to, its id and table filter. Timings are shortened for tests: 200 ms
 * heartbeats (a stream silent for 1 s is broken), reconnects from 50 ms, tables polled every 200 ms.
 *
 * <pre>{@code
 * ChangefeedSetup s = ChangefeedSetup.of(proxy.address(), downstream.jdbcUrl(), "cf1", "public.*");
 * }</pre>
 *
 * @param brokers      broker gRPC addresses
 * @param downstreamUrl JDBC URL of the sink's database (user postgres)
 * @param id           changefeed id (names its checkpoint rows)
 * @param filter       table filter patterns, e.g. {@code public.*}, {@code !public.tmp_*}
 * @param startTs      exclusive start ts where the sink holds nothing later
 * @param dispatcherQueueBytes each dispatcher's queue, its credit (0 = the library's default)
 */
public record ChangefeedSetup(List<String> brokers, String downstreamUrl, String id, List<String> filter, long startTs,
    long dispatcherQueueBytes) {

  public ChangefeedSetup {
    brokers = List.copyOf(brokers);
    filter = List.copyOf(filter);
    Objects.requireNonNull(downstreamUrl, "downstreamUrl");
    Objects.requireNonNull(id, "id");
  }

  public static ChangefeedSetup of(String broker, String downstreamUrl, String id, String... filter) {
    return new ChangefeedSetup(List.of(broker), downstreamUrl, id, List.of(filter), 0, 0);
  }

  public ChangefeedSetup withDispatcherQueueBytes(long bytes) {
    return new ChangefeedSetup(brokers, downstreamUrl, id, filter, startTs, bytes);
  }

  public ClientConfig clientConfig() {
    ClientConfig c = ClientConfig.of(brokers.toArray(String[]::new)).withCollectorId("it-" + id)
        .withHeartbeat(Duration.ofMillis(200), 5).withReconnectBackoff(Duration.ofMillis(50), Duration.ofSeconds(1))
        .withConnectTimeout(Duration.ofSeconds(5));
    return dispatcherQueueBytes > 0 ? c.withDispatcherQueueBytes(dispatcherQueueBytes) : c;
  }

  public ChangefeedDefinition definition() {
    return ChangefeedDefinition.of(id, TableFilter.of(filter.toArray(String[]::new)), startTs)
        .withTablePollInterval(Duration.ofMillis(200)).withRetryBackoffMax(Duration.ofSeconds(1));
  }

  public JdbcSinkConfig sinkConfig() {
    return JdbcSinkConfig.of(downstreamUrl, "postgres", null, id);
  }

  /** The command-line form {@link ChangefeedMain} parses. */
  public List<String> toArgs() {
    List<String> a = new ArrayList<>();
    for (String b : brokers) {
      a.add("--broker");
      a.add(b);
    }
    a.addAll(List.of("--downstream", downstreamUrl, "--id", id, "--start-ts", Long.toString(startTs),
        "--queue-bytes", Long.toString(dispatcherQueueBytes)));
    for (String f : filter) {
      a.add("--filter");
      a.add(f);
    }
    return a;
  }

  /** Parses {@link #toArgs()}. */
  public static ChangefeedSetup fromArgs(String[] args) {
    List<String> brokers = new ArrayList<>();
    List<String> filter = new ArrayList<>();
    String url = null;
    String id = null;
    long start = 0;
    long queue = 0;
    for (int i = 0; i < args.length; i += 2) {
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("option " + args[i] + " needs a value");
      }
      String v = args[i + 1];
      switch (args[i]) {
        case "--broker" -> brokers.add(v);
        case "--downstream" -> url = v;
        case "--id" -> id = v;
        case "--filter" -> filter.add(v);
        case "--start-ts" -> start = Long.parseLong(v);
        case "--queue-bytes" -> queue = Long.parseLong(v);
        default -> throw new IllegalArgumentException("unknown option " + args[i]
            + "; known: --broker, --downstream, --id, --filter, --start-ts, --queue-bytes");
      }
    }
    return new ChangefeedSetup(brokers, url, id, filter, start, queue);
  }
}
