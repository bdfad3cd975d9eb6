package dev.sluice.dispatcher.collector;

import static dev.sluice.dispatcher.collector.TestEvents.ORDERS;
import static dev.sluice.dispatcher.collector.TestEvents.SPAN;
import static dev.sluice.dispatcher.collector.TestEvents.batch;
import static dev.sluice.dispatcher.collector.TestEvents.removedStatus;
import static dev.sluice.dispatcher.collector.TestEvents.txn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.v1.CollectorMessage;
import dev.sluice.api.v1.DispatcherAction;
import dev.sluice.api.v1.DispatcherRequest;
import dev.sluice.dispatcher.BrokerAddress;
import dev.sluice.dispatcher.BrokerRefusedException;
import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.ClientConfig;
import dev.sluice.dispatcher.SubscriptionState;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.dispatcher.SubscriptionHandle;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The collector's stream life against {@link ScriptedBroker}s over real sockets: incarnation change,
 * REMOVED in a heartbeat response, StreamError, heartbeat timeout, the heartbeat and credit timers,
 * and failover to a second broker learned from GetTopology.
 */
class CollectorFailoverTest {

  private Vertx brokerVertx;
  private ScriptedBroker broker;
  private SluiceClient client;
  private final List<AutoCloseable> extra = new ArrayList<>();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @BeforeEach
  void start() throws Exception {
    brokerVertx = Vertx.vertx();
    broker = new ScriptedBroker(brokerVertx, "broker-a", 7, ORDERS).start();
  }

  @AfterEach
  void stop() throws Exception {
    if (client != null) {
      client.close();
    }
    broker.close();
    for (AutoCloseable c : extra) {
      c.close();
    }
    brokerVertx.close().await(10, TimeUnit.SECONDS);
  }

  private ClientConfig config() {
    return ClientConfig.of(broker.address()).withCollectorId("failover-test")
        .withHeartbeat(Duration.ofMillis(100), 4).withCreditInterval(Duration.ofMillis(50))
        .withReconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(200));
  }

  private SubscriptionHandle streaming(ClientConfig config, RecordingListener listener) throws Exception {
    client = SluiceClient.connect(config, registry);
    SubscriptionHandle h = client.subscribe(Subscription.span(SPAN).from(100).creditGroup("cf1"), listener);
    listener.handle = h;
    h.streaming().toCompletableFuture().get(10, TimeUnit.SECONDS);
    return h;
  }

  private static int hellos(ScriptedBroker b) {
    return b.messages(CollectorMessage::hasHello).size();
  }

  @Test
  void aNewIncarnationMakesEveryDispatcherRegisterAgainAndResetFromItsCheckpoint() throws Exception {
    RecordingListener listener = new RecordingListener();
    SubscriptionHandle h = streaming(config(), listener);
    DispatcherId id = h.dispatcherId();
    broker.send(batch(id, 1, txn(2, 101), txn(3, 102)));
    await().until(() -> listener.transactions.size() == 2);
    h.acknowledge(101);                      // 102 delivered but not acknowledged

    broker.incarnation = 8;
    broker.endStreams();

    await().until(() -> broker.requests(DispatcherAction.DISPATCHER_ACTION_RESET).size() == 2
        && h.state() == SubscriptionState.STREAMING);
    List<DispatcherRequest> registers = broker.requests(DispatcherAction.DISPATCHER_ACTION_REGISTER);
    assertThat(registers).hasSize(2);
    assertThat(registers.get(1).getEpoch()).isZero();
    assertThat(registers.get(1).getStartTs()).isEqualTo(101);
    DispatcherRequest reset = broker.lastRequest(DispatcherAction.DISPATCHER_ACTION_RESET);
    assertThat(reset.getEpoch()).isEqualTo(2);
    assertThat(reset.getStartTs()).isEqualTo(101);

    broker.send(batch(id, 2, txn(2, 102), txn(3, 103)));   // 102 again, as a broker resuming from 101 does
    await().until(() -> listener.transactions.size() == 3);
    assertThat(listener.commitTs()).containsExactly(101L, 102L, 103L);
    assertThat(registry.get("sluice.dispatcher.resets").tag("reason", "start").counter().count()).isEqualTo(1);
    assertThat(registry.get("sluice.dispatcher.resets").tag("reason", "broker_restarted").counter().count())
        .isEqualTo(1);
  }

  @Test
  void removedInAHeartbeatResponseRegistersAgain() throws Exception {
    RecordingListener listener = new RecordingListener();
    SubscriptionHandle h = streaming(config(), listener);

    broker.send(removedStatus(h.dispatcherId(), 0));        // another epoch: stale, ignored
    broker.send(removedStatus(h.dispatcherId(), 1));

    await().until(() -> broker.requests(DispatcherAction.DISPATCHER_ACTION_REGISTER).size() == 2
        && h.state() == SubscriptionState.STREAMING);
    assertThat(broker.requests(DispatcherAction.DISPATCHER_ACTION_REGISTER)).hasSize(2);
    assertThat(broker.lastRequest(DispatcherAction.DISPATCHER_ACTION_RESET).getEpoch()).isEqualTo(2);
    assertThat(hellos(broker)).isEqualTo(1);
  }

  @Test
  void aRetryableStreamErrorReconnectsAfterTheBackoff() throws Exception {
    ClientConfig config = config().withReconnectBackoff(Duration.ofMillis(400), Duration.ofMillis(800));
    RecordingListener listener = new RecordingListener();
    SubscriptionHandle h = streaming(config, listener);

    long sent = System.nanoTime();
    broker.streamError(dev.sluice.api.v1.ErrorCode.ERROR_CODE_SHUTTING_DOWN, "draining", true);

    await().until(() -> hellos(broker) == 2);
    long gapMs = TimeUnit.NANOSECONDS.toMillis(broker.helloNanos.get(1) - sent);
    assertThat(gapMs).as("reconnect waited for the backoff (min 400 ms, -20%% jitter)").isGreaterThanOrEqualTo(320);
    await().until(() -> h.state() == SubscriptionState.STREAMING
        && broker.requests(DispatcherAction.DISPATCHER_ACTION_RESET).size() == 2);
    assertThat(listener.errors).isEmpty();
    assertThat(registry.get("sluice.collector.reconnects").counter().count()).isEqualTo(1);
  }

  @Test
  void aNonRetryableStreamErrorBeforeWelcomeFailsEverySubscription() throws Exception {
    broker.welcome = false;
    client = SluiceClient.connect(config(), registry);
    RecordingListener listener = new RecordingListener();
    SubscriptionHandle h = client.subscribe(Subscription.span(SPAN).from(1), listener);
    await().until(() -> hellos(broker) == 1);

    broker.streamError(dev.sluice.api.v1.ErrorCode.ERROR_CODE_UNSUPPORTED_FEATURE, "unknown feature warp-drive", false);

    await().until(() -> !listener.errors.isEmpty());
    assertThat(listener.errors.get(0)).isInstanceOf(BrokerRefusedException.class);
    assertThat(listener.errors.get(0).code()).isEqualTo(ErrorCode.UNSUPPORTED_FEATURE);
    assertThat(listener.errors.get(0).getMessage()).contains("warp-drive");
    assertThat(h.state()).isEqualTo(SubscriptionState.FAILED);
  }

  @Test
  void heartbeatsAndCreditReportsFollowTheirIntervals() throws Exception {
    RecordingListener listener = new RecordingListener();
    SubscriptionHandle h = streaming(config(), listener);
    broker.send(batch(h.dispatcherId(), 1, txn(2, 101)));
    await().until(() -> listener.transactions.size() == 1);
    int hb = broker.heartbeatNanos.size();
    int cr = broker.creditNanos.size();

    await().atMost(Duration.ofSeconds(10)).until(() -> broker.heartbeatNanos.size() >= hb + 8
        && broker.creditNanos.size() >= cr + 16);

    assertThat(medianGapMs(broker.heartbeatNanos.subList(hb, broker.heartbeatNanos.size()))).isBetween(80L, 250L);
    assertThat(medianGapMs(broker.creditNanos.subList(cr, broker.creditNanos.size()))).isBetween(40L, 150L);
    var heartbeats = broker.messages(CollectorMessage::hasHeartbeatBatch);
    var last = heartbeats.get(heartbeats.size() - 1).getHeartbeatBatch().getHeartbeats(0);
    assertThat(last.getEpoch()).isEqualTo(1);
    assertThat(last.getCheckpointTs()).isEqualTo(100);     // nothing acknowledged yet
    h.acknowledge(Checkpoint.at(101));
    int now = heartbeats.size();
    await().until(() -> broker.messages(CollectorMessage::hasHeartbeatBatch).size() > now + 1);
    var hbs = broker.messages(CollectorMessage::hasHeartbeatBatch);
    assertThat(hbs.get(hbs.size() - 1).getHeartbeatBatch().getHeartbeats(0).getCheckpointTs()).isEqualTo(101);
    var credits = broker.messages(CollectorMessage::hasCreditReport);
    var credit = credits.get(credits.size() - 1).getCreditReport();
    assertThat(credit.getDispatchers(0).getReceivedBytes()).isEqualTo(txn(2, 101).getSerializedSize());
    assertThat(credit.getDispatchers(0).getAvailableBytes()).isEqualTo(ClientConfig.DEFAULT_DISPATCHER_QUEUE_BYTES);
    assertThat(credit.getChangefeeds(0).getChangefeedId()).isEqualTo("cf1");
  }

  @Test
  void theHeartbeatCheckpointIsClampedToWhatTheCurrentEpochDelivered() throws Exception {
    RecordingListener listener = new RecordingListener();
    SubscriptionHandle h = streaming(config(), listener);
    DispatcherId id = h.dispatcherId();
    broker.send(batch(id, 1, txn(2, 101), txn(3, 102)));
    await().until(() -> listener.transactions.size() == 2);
    h.acknowledge(102);
    broker.autoControl = false;
    broker.send(batch(id, 1, txn(5, 103)));               // gap: RESET epoch 2 from 102, left unanswered

    await().until(() -> broker.requests(DispatcherAction.DISPATCHER_ACTION_RESET).size() == 2);
    int before = broker.messages(CollectorMessage::hasHeartbeatBatch).size();
    await().until(() -> broker.messages(CollectorMessage::hasHeartbeatBatch).size() > before + 1);
    var hbs = broker.messages(CollectorMessage::hasHeartbeatBatch);
    var hb = hbs.get(hbs.size() - 1).getHeartbeatBatch().getHeartbeats(0);
    assertThat(hb.getEpoch()).isEqualTo(2);
    assertThat(hb.getCheckpointTs()).isEqualTo(102);
  }

  @Test
  void missingHeartbeatResponsesBreakTheStreamAndTheCollectorReconnects() throws Exception {
    RecordingListener listener = new RecordingListener();
    SubscriptionHandle h = streaming(config(), listener);
    broker.answerHeartbeats = false;

    await().until(() -> hellos(broker) == 2);
    broker.answerHeartbeats = true;
    await().until(() -> h.state() == SubscriptionState.STREAMING
        && broker.requests(DispatcherAction.DISPATCHER_ACTION_RESET).size() == 2);
    assertThat(broker.requests(DispatcherAction.DISPATCHER_ACTION_REGISTER)).hasSize(2);
  }

  /**
   * A broker address that accepts TCP but never answers (a black hole): each Welcome timeout must dial a
   * new connection; reusing the pooled one, still waiting for the server's preface, would stay silent.
   */
  @Test
  void aSilentBrokerIsDialledAfreshAfterEachWelcomeTimeout() throws Exception {
    AtomicInteger accepted = new AtomicInteger();
    NetServer silent = brokerVertx.createNetServer().connectHandler(socket -> {
      accepted.incrementAndGet();
      socket.handler(bytes -> { });   // reads and drops everything, answers nothing
    });
    silent.listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    extra.add(() -> silent.close().await(10, TimeUnit.SECONDS));
    client = SluiceClient.connect(ClientConfig.of("127.0.0.1:" + silent.actualPort()).withCollectorId("silent-test")
        .withConnectTimeout(Duration.ofMillis(300)).withReconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(50)),
        registry);
    client.subscribe(Subscription.span(SPAN).from(100).creditGroup("cf1"), new RecordingListener());

    await().atMost(Duration.ofSeconds(20)).until(accepted::get, n -> n >= 3);
  }

  @Test
  void aDeadBrokerIsLeftForTheMemberNamedByGetTopology() throws Exception {
    Vertx otherVertx = Vertx.vertx();
    ScriptedBroker b = new ScriptedBroker(otherVertx, "broker-b", 99, ORDERS).start();
    extra.add(b);
    extra.add(() -> otherVertx.close().await(10, TimeUnit.SECONDS));
    broker.extraMembers.add(b.address());
    RecordingListener listener = new RecordingListener().autoAck();
    SubscriptionHandle h = streaming(config(), listener);
    DispatcherId id = h.dispatcherId();
    broker.send(batch(id, 1, txn(2, 101)));
    await().until(() -> h.acknowledged().equals(Checkpoint.at(101)));
    await().until(() -> client.knownBrokers().contains(BrokerAddress.parse(b.address())));

    broker.close();

    await().until(() -> h.state() == SubscriptionState.STREAMING
        && b.requests(DispatcherAction.DISPATCHER_ACTION_RESET).size() == 1);
    DispatcherRequest register = b.lastRequest(DispatcherAction.DISPATCHER_ACTION_REGISTER);
    assertThat(register.getStartTs()).isEqualTo(101);
    DispatcherRequest reset = b.lastRequest(DispatcherAction.DISPATCHER_ACTION_RESET);
    assertThat(reset.getEpoch()).isEqualTo(2);
    assertThat(reset.getStartTs()).isEqualTo(101);
    assertThat(client.connectedBroker()).startsWith("broker-b@");
    b.send(batch(id, 2, txn(2, 102)));
    await().until(() -> listener.transactions.size() == 2);
    assertThat(listener.commitTs()).containsExactly(101L, 102L);
    assertThat(listener.errors).isEmpty();
  }

  private static long medianGapMs(List<Long> nanos) {
    List<Long> gaps = new ArrayList<>();
    for (int i = 1; i < nanos.size(); i++) {
      gaps.add(TimeUnit.NANOSECONDS.toMillis(nanos.get(i) - nanos.get(i - 1)));
    }
    Collections.sort(gaps);
    return gaps.get(gaps.size() / 2);
  }
}
