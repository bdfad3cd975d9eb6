package dev.sluice.dispatcher.collector;

import static dev.sluice.dispatcher.collector.TestEvents.ORDERS;
import static dev.sluice.dispatcher.collector.TestEvents.SPAN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.SluiceException;
import dev.sluice.api.v1.AckStatus;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.ControlAck;
import dev.sluice.api.v1.DispatcherAction;
import dev.sluice.api.v1.DispatcherRequest;
import dev.sluice.dispatcher.ChangeListener;
import dev.sluice.dispatcher.ClientConfig;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.StateChange;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.dispatcher.SubscriptionHandle;
import dev.sluice.dispatcher.SubscriptionStalledException;
import dev.sluice.dispatcher.SubscriptionState;
import dev.sluice.dispatcher.Transaction;
import io.vertx.core.Vertx;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * What a subscription tells about its life: state changes in order with the reason being retried, and a bound
 * (ClientConfig.retryTimeout) after which persistent trouble fails it through {@code streaming()} and
 * {@code onError}, with a sentence instead of a Netty exception or a gRPC status number. Against nothing
 * listening (a closed port) and a {@link ScriptedBroker} that keeps refusing transiently.
 */
class SubscriptionLifecycleTest {

  /** Records state changes and the error; acknowledges nothing. */
  static final class StateRecorder implements ChangeListener {
    final List<StateChange> changes = new CopyOnWriteArrayList<>();
    final AtomicReference<SluiceException> error = new AtomicReference<>();
    final List<String> callOrder = new CopyOnWriteArrayList<>();

    @Override
    public void onTransaction(Transaction transaction) {
      callOrder.add("txn");
    }

    @Override
    public void onStateChange(StateChange change) {
      changes.add(change);
      callOrder.add(change.state().name());
    }

    @Override
    public void onError(SluiceException e) {
      error.set(e);
      callOrder.add("error");
    }

    List<SubscriptionState> states() {
      return changes.stream().map(StateChange::state).toList();
    }
  }

  private static int closedPort() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      return s.getLocalPort();
    }
  }

  private static ClientConfig quick(String broker) {
    return ClientConfig.of(broker).withCollectorId("lifecycle").withReconnectBackoff(Duration.ofMillis(50),
        Duration.ofMillis(200)).withHeartbeat(Duration.ofMillis(100), 10).withConnectTimeout(Duration.ofSeconds(2))
        .withRetryTimeout(Duration.ofMillis(1500));
  }

  private static void assertReadable(String text) {
    assertThat(text).doesNotContain("io.netty").doesNotContain("Exception:").doesNotContainPattern("answered \\d");
  }

  @Test
  void aWrongBrokerPortRetriesVisiblyThenFailsStreamingAndOnError() throws Exception {
    int port = closedPort();
    StateRecorder listener = new StateRecorder();
    try (SluiceClient client = SluiceClient.connect(quick("127.0.0.1:" + port))) {
      SubscriptionHandle h = client.subscribe(Subscription.span(SPAN).from(100), listener);

      ExecutionException failed = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
          () -> h.streaming().toCompletableFuture().get(30, TimeUnit.SECONDS));
      assertThat(failed.getCause()).isInstanceOfSatisfying(SubscriptionStalledException.class, e -> {
        assertThat(e.code()).isEqualTo(ErrorCode.BROKER_UNREACHABLE);
        assertThat(e.getMessage()).contains("127.0.0.1:" + port).contains("connection refused")
            .contains("ClientConfig.brokers");
        assertReadable(e.getMessage());
      });
      await().atMost(Duration.ofSeconds(10)).until(() -> listener.error.get() != null);
      assertThat(listener.error.get()).isSameAs(failed.getCause());
      assertThat(h.state()).isEqualTo(SubscriptionState.FAILED);
      assertThat(listener.states()).startsWith(SubscriptionState.CONNECTING, SubscriptionState.RETRYING)
          .endsWith(SubscriptionState.FAILED);
      StateChange retrying = listener.changes.get(1);
      assertThat(retrying.reason()).contains("cannot connect to broker 127.0.0.1:" + port + ": connection refused");
      assertThat(retrying.code()).isEqualTo(ErrorCode.BROKER_UNREACHABLE);
      listener.changes.forEach(c -> assertReadable(c.reason()));
      assertThat(listener.callOrder).endsWith("FAILED", "error");
    }
  }

  @Test
  void theClientsOwnCallsAgainstAWrongPortFailWithATypedErrorNotANettyException() throws Exception {
    int port = closedPort();
    try (SluiceClient client = SluiceClient.connect(quick("127.0.0.1:" + port))) {
      List<java.util.concurrent.CompletionStage<?>> calls = List.of(client.tableSchema("public.orders", 0),
          client.listTables(0), client.topology());
      for (var call : calls) {
        ExecutionException failed = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
            () -> call.toCompletableFuture().get(30, TimeUnit.SECONDS));
        assertThat(failed.getCause()).isInstanceOfSatisfying(dev.sluice.api.error.TransientException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.BROKER_UNREACHABLE);
          assertThat(e.getMessage()).containsPattern("^(GetTableSchema|ListTables|GetTopology) failed: ")
              .contains("cannot connect to broker 127.0.0.1:" + port + ": connection refused");
          assertReadable(e.getMessage());
        });
      }
    }
  }

  @Test
  void aTableLookedUpBeforeTheBrokerKnowsItsTsIsRetriedNotRefused() throws Exception {
    Vertx vertx = Vertx.vertx();
    try (ScriptedBroker broker = new ScriptedBroker(vertx, "broker-a", 7, ORDERS).start()) {
      broker.tables.put("public.orders", dev.sluice.api.v1.TableEntry.newBuilder().setTableInfo(ORDERS)
          .setCreatedTs(1).build());
      broker.schemaNotYetKnown.set(3);   // the broker's schema store has not reached ts 100 for three lookups
      StateRecorder listener = new StateRecorder();
      try (SluiceClient client = SluiceClient.connect(quick(broker.address()).withRetryTimeout(Duration.ofSeconds(30))
          .withConnectTimeout(Duration.ofSeconds(20)).withHeartbeat(Duration.ofMillis(100), 100))) {
        SubscriptionHandle h = client.subscribe(Subscription.table("public.orders").from(100), listener);
        h.streaming().toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertThat(broker.schemaNotYetKnown.get()).isZero();
        assertThat(listener.error.get()).isNull();
        assertThat(listener.changes).anySatisfy(c -> {
          assertThat(c.state()).isEqualTo(SubscriptionState.RETRYING);
          assertThat(c.code()).isEqualTo(ErrorCode.SCHEMA_UNAVAILABLE);
          assertThat(c.reason()).contains("UNAVAILABLE").contains("not known yet").contains("GetTableSchema");
          assertReadable(c.reason());
        });
        await().until(() -> h.state() == SubscriptionState.STREAMING);
      }
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aTableNameAgainstAWrongPortFailsTheSameWay() throws Exception {
    int port = closedPort();
    StateRecorder listener = new StateRecorder();
    try (SluiceClient client = SluiceClient.connect(quick("127.0.0.1:" + port))) {
      SubscriptionHandle h = client.subscribe(Subscription.table("public.orders").fromNow(), listener);
      await().atMost(Duration.ofSeconds(30)).until(() -> listener.error.get() != null);
      assertThat(listener.error.get()).isInstanceOf(SubscriptionStalledException.class)
          .hasMessageContaining("127.0.0.1:" + port).hasMessageContaining("connection refused");
      assertReadable(listener.error.get().getMessage());
      // the listener hears the error on its own thread, maybe before the future completes on the collector's
      await().until(() -> h.streaming().toCompletableFuture().isCompletedExceptionally());
      assertThat(h.state()).isEqualTo(SubscriptionState.FAILED);
      assertThat(listener.states()).contains(SubscriptionState.RETRYING);
    }
  }

  @Test
  void aTransientRefusalThatNeverEndsFailsAfterTheRetryTimeoutWithItsCode() throws Exception {
    Vertx vertx = Vertx.vertx();
    try (ScriptedBroker broker = new ScriptedBroker(vertx, "broker-a", 7, ORDERS).start()) {
      broker.autoControl = false;
      StateRecorder listener = new StateRecorder();
      try (SluiceClient client = SluiceClient.connect(quick(broker.address()))) {
        // REGISTER is accepted, every RESET refused with START_TS_AHEAD, as a broker does for a ts it never reaches
        vertx.setPeriodic(20, id -> {
          for (DispatcherRequest r : broker.requests(DispatcherAction.DISPATCHER_ACTION_REGISTER)) {
            answerOnce(broker, r, null);
          }
          for (DispatcherRequest r : broker.requests(DispatcherAction.DISPATCHER_ACTION_RESET)) {
            answerOnce(broker, r, "start ts 9223372036854775807 is above this broker's resolved ts 120");
          }
        });
        SubscriptionHandle h = client.subscribe(Subscription.span(SPAN).from(Long.MAX_VALUE), listener);
        await().atMost(Duration.ofSeconds(30)).until(() -> listener.error.get() != null);
        assertThat(listener.error.get()).isInstanceOfSatisfying(SubscriptionStalledException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.START_TS_AHEAD);
          assertThat(e.lastReason()).contains("above this broker's resolved ts 120");
          assertThat(e.getMessage()).contains("fromNow");
        });
        // the listener hears the error on its own thread, maybe before the future completes on the collector's
        await().until(() -> h.streaming().toCompletableFuture().isCompletedExceptionally());
        assertThat(listener.changes).anySatisfy(c -> {
          assertThat(c.state()).isEqualTo(SubscriptionState.RETRYING);
          assertThat(c.code()).isEqualTo(ErrorCode.START_TS_AHEAD);
        });
        await().until(() -> broker.lastRequest(DispatcherAction.DISPATCHER_ACTION_REMOVE) != null);
      }
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  private static final java.util.Set<DispatcherRequest> ANSWERED = java.util.concurrent.ConcurrentHashMap.newKeySet();

  private static void answerOnce(ScriptedBroker broker, DispatcherRequest r, String refusal) {
    if (!ANSWERED.add(r)) {
      return;
    }
    if (refusal == null) {
      broker.send(ScriptedBroker.ack(r, AckStatus.ACK_STATUS_ACCEPTED));
      broker.send(BrokerMessage.newBuilder().setReady(dev.sluice.api.v1.Ready.newBuilder()
          .setDispatcherId(r.getDispatcherId())).build());
    } else {
      broker.send(BrokerMessage.newBuilder().setControlAck(ControlAck.newBuilder().setDispatcherId(r.getDispatcherId())
          .setAction(r.getAction()).setEpoch(r.getEpoch()).setStatus(AckStatus.ACK_STATUS_REJECTED)
          .setCode(ErrorCode.START_TS_AHEAD.toWire()).setReason(refusal)).build());
    }
  }

  @Test
  void aClosedHandleSaysClosedAndTheStateChangesComeInOrderWithTheData() throws Exception {
    Vertx vertx = Vertx.vertx();
    try (ScriptedBroker broker = new ScriptedBroker(vertx, "broker-a", 7, ORDERS).start()) {
      StateRecorder listener = new StateRecorder();
      // timeouts far above a loaded machine's stalls: the only trouble here is the one the test makes
      try (SluiceClient client = SluiceClient.connect(quick(broker.address()).withRetryTimeout(Duration.ofSeconds(30))
          .withConnectTimeout(Duration.ofSeconds(20)).withHeartbeat(Duration.ofMillis(100), 100))) {
        SubscriptionHandle h = client.subscribe(Subscription.span(SPAN).from(100), listener);
        h.streaming().toCompletableFuture().get(10, TimeUnit.SECONDS);
        await().until(() -> listener.states().contains(SubscriptionState.STREAMING));
        assertThat(listener.states()).containsExactly(SubscriptionState.CONNECTING, SubscriptionState.STREAMING);
        assertThat(h.status().reason()).contains("streaming epoch 1");

        broker.endStreams();   // the broker goes away for a moment: RETRYING with why, then STREAMING again
        await().atMost(Duration.ofSeconds(10)).until(() -> listener.states().size() >= 4
            && h.state() == SubscriptionState.STREAMING);
        assertThat(listener.states()).containsExactly(SubscriptionState.CONNECTING, SubscriptionState.STREAMING,
            SubscriptionState.RETRYING, SubscriptionState.STREAMING);
        assertThat(listener.changes.get(2).reason()).contains(broker.address());

        h.close();
        assertThat(h.state()).isEqualTo(SubscriptionState.CLOSED);
        assertThat(listener.error.get()).isNull();
      }
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }
}
