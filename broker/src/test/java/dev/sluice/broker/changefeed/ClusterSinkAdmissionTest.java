package dev.sluice.broker.changefeed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.broker.cluster.ClusterMap;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one-writer rule of a file sink across the cluster: a changefeed another node recorded moments ago,
 * whose replicated copy has not reached this node's supervisor yet, still owns its file. The cluster map
 * is a test double (an in-memory map whose change events for the other node's write are still in flight;
 * the real one is a Hazelcast IMap, exercised in the it/ cluster scenarios); the store and the
 * supervisor are real. Before, the rule looked only at the records this node had already received.
 */
class ClusterSinkAdmissionTest {

  /** The cluster's copy: {@link #writtenElsewhere} lands in the map but its change event has not arrived. */
  static final class InFlightMap implements ClusterMap {
    final Map<String, String> entries = new ConcurrentHashMap<>();
    final List<BiConsumer<String, String>> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();

    void writtenElsewhere(String key, String value) {
      entries.put(key, value);
    }

    @Override
    public Optional<String> get(String key) {
      return Optional.ofNullable(entries.get(key));
    }

    @Override
    public Map<String, String> snapshot() {
      return Map.copyOf(entries);
    }

    @Override
    public void put(String key, String value) {
      entries.put(key, value);
      listeners.forEach(l -> l.accept(key, value));
    }

    @Override
    public boolean replace(String key, String expected, String value) {
      boolean done = expected == null ? entries.putIfAbsent(key, value) == null : entries.replace(key, expected, value);
      if (done) {
        listeners.forEach(l -> l.accept(key, value));
      }
      return done;
    }

    @Override
    public void remove(String key) {
      entries.remove(key);
      listeners.forEach(l -> l.accept(key, null));
    }

    @Override
    public void onChange(BiConsumer<String, String> listener) {
      listeners.add(listener);
    }
  }

  @Test
  void aFileAnotherNodesChangefeedWritesIsRefusedBeforeItsRecordReachedThisNode(@TempDir Path dir) {
    Path sinks = dir.resolve("sinks").toAbsolutePath();
    InFlightMap cluster = new InFlightMap();
    HostBroker host = new HostBroker() {
      @Override
      public String grpcAddress() {
        return "127.0.0.1:1";
      }

      @Override
      public long resolvedTs() {
        return 0;
      }

      @Override
      public CompletionStage<Long> dispatchersOf(String changefeedId) {
        return CompletableFuture.completedFuture(0L);
      }

      @Override
      public void holdGc(java.util.function.LongSupplier lowestHeldTs) {
        // no event store here: nothing to hold
      }
    };
    Vertx vertx = Vertx.vertx();
    try (ChangefeedStore store = ChangefeedStore.open(dir.resolve("store"))) {
      ChangefeedSupervisor supervisor = ChangefeedSupervisor.start(store, cluster,
          ChangefeedConfig.defaults().withFileSinkDir(sinks), new StandardSinkConnector(System.out), host, vertx,
          new CommitClock(null, System::currentTimeMillis), System::currentTimeMillis, new SimpleMeterRegistry());
      try {
        ChangefeedSpec spec = new ChangefeedSpec(List.of(), List.of("public.*"), List.of(), 1,
            SinkUri.parse("jsonl:file:" + sinks.resolve("orders.jsonl")), ChangefeedOptions.defaults());
        ChangefeedRecord theirs = ChangefeedRecord.absent("theirs").recreated(spec, 1_000);
        cluster.writtenElsewhere("theirs", theirs.toJson().encode());

        CompletableFuture<ChangefeedRecord> mine = supervisor.create("mine", spec, true);
        assertThat(mine).failsWithin(java.time.Duration.ofSeconds(10)).withThrowableOfType(
            java.util.concurrent.ExecutionException.class).havingCause().isInstanceOf(SinkInUseException.class)
            .withMessageContaining("is written by changefeed \"theirs\"");
        assertThat(cluster.get("mine")).as("nothing recorded").isEmpty();

        ChangefeedSpec elsewhere = spec.withSink(SinkUri.parse("jsonl:file:" + sinks.resolve("mine.jsonl")));
        assertThat(supervisor.create("mine", elsewhere, true)).succeedsWithin(java.time.Duration.ofSeconds(10));
      } finally {
        supervisor.close();
      }
    } finally {
      vertx.close();
    }
  }
}
