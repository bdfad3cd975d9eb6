package dev.sluice.dispatcher.collector;

import static dev.sluice.dispatcher.collector.TestEvents.ORDERS;
import static dev.sluice.dispatcher.collector.TestEvents.SPAN;
import static dev.sluice.dispatcher.collector.TestEvents.batch;
import static dev.sluice.dispatcher.collector.TestEvents.fragment;
import static dev.sluice.dispatcher.collector.TestEvents.insert;
import static dev.sluice.dispatcher.collector.TestEvents.resolved;
import static dev.sluice.dispatcher.collector.TestEvents.txn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.ProtocolInfo;
import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.v1.AckStatus;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.CollectorMessage;
import dev.sluice.api.v1.ControlAck;
import dev.sluice.api.v1.DispatcherAction;
import dev.sluice.api.v1.DispatcherRequest;
import dev.sluice.api.v1.TableEntry;
import dev.sluice.dispatcher.Checkpoint;
import dev.sluice.dispatcher.ClientConfig;
import dev.sluice.dispatcher.SubscriptionState;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.dispatcher.SubscriptionHandle;
import dev.sluice.dispatcher.SubscriptionRejectedException;
import dev.sluice.dispatcher.Transaction;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The collector against a {@link ScriptedBroker} over real sockets: handshake, PROTOCOL.md's receiver
 * rules (gap, stale epoch, wrong last seq, fragments), acks, name resolution and back-pressure.
 */
class CollectorTest {

  private Vertx brokerVertx;
  private ScriptedBroker broker;
  private SluiceClient client;
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
    brokerVertx.close().await(10, TimeUnit.SECONDS);
  }

  private ClientConfig config() {
    return ClientConfig.of(broker.address()).withCollectorId("test-collector")
        .withHeartbeat(Duration.ofMillis(200), 10).withCreditInterval(Duration.ofMillis(50))
        .withReconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(200));
  }

  private SubscriptionHandle subscribe(Subscription sub, RecordingListener listener) {
    if (client == null) {
      client = SluiceClient.connect(config(), registry);
    }
    SubscriptionHandle h = client.subscribe(sub, listener);
    listener.handle = h;
    return h;
  }

  /** Subscribes from ts 100 and waits until the epoch-1 handshake was accepted. */
  private SubscriptionHandle streaming(RecordingListener listener) throws Exception {
    SubscriptionHandle h = subscribe(Subscription.span(SPAN).from(100).creditGroup("cf1"), listener);
    h.streaming().toCompletableFuture().get(10, TimeUnit.SECONDS);
    return h;
  }

  private int resets() {
    return broker.requests(DispatcherAction.DISPATCHER_ACTION_RESET).size();
  }

  @Test
  void helloThenRegisterReadyResetHandshakeThenTransactionsInOrder() throws Exception {
    RecordingListener listener = new RecordingListener();
    SubscriptionHandle h = streaming(listener);
    DispatcherId id = h.dispatcherId();

    CollectorMessage hello = broker.received.get(0);
    assertThat(hello.hasHello()).isTrue();
    assertThat(hello.getHello().getCollectorId()).isEqualTo("test-collector");
    assertThat(hello.getHello().getProtocolVersion()).isEqualTo(ProtocolInfo.VERSION);
    assertThat(hello.getHello().getRequiredFeaturesList())
        .contains(ProtocolInfo.FEATURE_CREDITS, ProtocolInfo.FEATURE_RESOLVED_BATCH);
    DispatcherRequest register = broker.requests(DispatcherAction.DISPATCHER_ACTION_REGISTER).get(0);
    assertThat(register.getEpoch()).isZero();
    assertThat(register.getStartTs()).isEqualTo(100);
    assertThat(register.getChangefeedId()).isEqualTo("cf1");
    assertThat(register.getSpan()).isEqualTo(SPAN.toProto());
    DispatcherRequest reset = broker.lastRequest(DispatcherAction.DISPATCHER_ACTION_RESET);
    assertThat(reset.getEpoch()).isEqualTo(1);
    assertThat(reset.getStartTs()).isEqualTo(100);

    broker.sendAll(java.util.List.of(batch(id, 1, txn(2, 101), txn(3, 102)), resolved(id, 1, 102, 3)));

    await().atMost(Duration.ofSeconds(10)).until(() -> listener.resolved.contains(102L));
    assertThat(listener.commitTs()).containsExactly(101L, 102L);
    Transaction first = listener.transactions.get(0);
    assertThat(first.complete()).isTrue();
    assertThat(first.tableName()).isEqualTo("public.orders");
    assertThat(first.rows().get(0).after().getLong("id")).isEqualTo(101);
    assertThat(first.rows().get(0).before().isPresent()).isFalse();
    assertThat(h.state()).isEqualTo(SubscriptionState.STREAMING);
    assertThat(h.stats().eventsReceived()).isEqualTo(2);
    assertThat(registry.get("sluice.dispatcher.events.received").counter().count()).isEqualTo(2);
    assertThat(registry.get("sluice.dispatcher.state").tag("state", "streaming").gauge().value()).isEqualTo(1);
    assertThat(registry.get("sluice.dispatcher.state").tag("state", "registering").gauge().value()).isZero();
  }

  @Test
  void aThrowingListenerEndsItsSubscriptionWithATypedErrorAndARemove() throws Exception {
    RecordingListener listener = new RecordingListener() {
      @Override
      public void onTransaction(Transaction transaction) {
        throw new IllegalStateException("boom at " + transaction.commitTs());
      }
    };
    SubscriptionHandle h = streaming(listener);
    broker.send(batch(h.dispatcherId(), 1, txn(2, 101)));

    await().until(() -> !listener.errors.isEmpty());
    assertThat(listener.errors).singleElement().isInstanceOfSatisfying(dev.sluice.dispatcher.ListenerFailedException.class,
        e -> {
          assertThat(e.commitTs()).isEqualTo(101);
          assertThat(e.getCause()).hasMessage("boom at 101");
        });
    await().until(() -> broker.lastRequest(DispatcherAction.DISPATCHER_ACTION_REMOVE) != null);
    assertThat(h.state()).isEqualTo(SubscriptionState.FAILED);
  }

  @Test
  void seqGapDiscardsTheBatchAndResetsWithAHigherEpochFromTheCheckpoint() throws Exception {
    RecordingListener listener = new RecordingListener().autoAck();
    SubscriptionHandle h = streaming(listener);
    DispatcherId id = h.dispatcherId();
    broker.send(batch(id, 1, txn(2, 101)));
    await().until(() -> h.acknowledged().equals(Checkpoint.at(101)));

    broker.send(batch(id, 1, txn(4, 103), txn(5, 104)));   // seq 3 missing

    await().until(() -> resets() == 2);
    DispatcherRequest reset = broker.lastRequest(DispatcherAction.DISPATCHER_ACTION_RESET);
    assertThat(reset.getEpoch()).isEqualTo(2);
    assertThat(reset.getStartTs()).isEqualTo(101);
    await().until(() -> h.state() == SubscriptionState.STREAMING);
    broker.send(batch(id, 2, txn(2, 102), txn(3, 103)));
    await().until(() -> listener.transactions.size() == 3);
    assertThat(listener.commitTs()).containsExactly(101L, 102L, 103L);
    assertThat(registry.get("sluice.dispatcher.resets").tag("reason", "seq_gap").counter().count()).isEqualTo(1);
  }

  /** READ rows (id, "r" + id) for ids {@code from..to} as one CopyRows transaction of rows seq 0.., at seq {@code seq}. */
  private static dev.sluice.api.v1.DataEvent copyRows(long seq, long commitTs, int rowCount, long from, long to) {
    StringBuilder lines = new StringBuilder();
    dev.sluice.api.v1.CopyRows.Builder copy = dev.sluice.api.v1.CopyRows.newBuilder().setRowCount(rowCount)
        .addColumns(dev.sluice.api.v1.ColumnCodec.newBuilder().setCodec(dev.sluice.api.v1.TextCodec.TEXT_CODEC_INT))
        .addColumns(dev.sluice.api.v1.ColumnCodec.newBuilder().setCodec(dev.sluice.api.v1.TextCodec.TEXT_CODEC_TEXT));
    for (long id = from; id <= to; id++) {
      lines.append(id).append("\tr").append(id).append('\n');
      copy.addKeyHashes((int) id);
    }
    return dev.sluice.api.v1.DataEvent.newBuilder().setSeq(seq).setDml(dev.sluice.api.v1.DmlBatch.newBuilder()
        .setCommitTs(commitTs).setLastFragment(true).setCopyRows(copy.setLines(
            com.google.protobuf.ByteString.copyFromUtf8(lines.toString())))).build();
  }

  /**
   * Copy-text end to end: the collector asks for it (optionally), a CopyRows batch reaches the listener as READ rows
   * backed by their lines, and a batch whose row_count disagrees with its lines is a violation that resets the
   * epoch from the checkpoint, like a seq gap.
   */
  @Test
  void copyRowsArriveAsLineBackedReadRowsAndMalformedOnesResetTheEpoch() throws Exception {
    RecordingListener listener = new RecordingListener().autoAck();
    SubscriptionHandle h = streaming(listener);
    DispatcherId id = h.dispatcherId();
    assertThat(broker.received.get(0).getHello().getOptionalFeaturesList()).contains(ProtocolInfo.FEATURE_COPY_TEXT);

    broker.send(batch(id, 1, copyRows(2, 101, 3, 1, 3)));
    await().until(() -> h.acknowledged().equals(Checkpoint.at(101)));
    Transaction chunk = listener.transactions.get(0);
    assertThat(chunk.rows()).extracting(r -> r.after().copyLine() != null).containsExactly(true, true, true);
    assertThat(chunk.rows()).extracting(r -> r.after().getString("note")).containsExactly("r1", "r2", "r3");
    assertThat(chunk.rows()).extracting(dev.sluice.dispatcher.RowChangeView::keyHash).containsExactly(1, 2, 3);

    broker.send(batch(id, 1, copyRows(3, 102, 3, 4, 5)));   // row_count 3, two lines

    await().until(() -> resets() == 2);
    assertThat(broker.lastRequest(DispatcherAction.DISPATCHER_ACTION_RESET).getStartTs()).isEqualTo(101);
    assertThat(registry.get("sluice.dispatcher.resets").tag("reason", "copy_rows_malformed").counter().count())
        .isEqualTo(1);
    assertThat(listener.transactions).hasSize(1);
  }

  @Test
  void eventsOfAStaleEpochAreIgnoredSilently() throws Exception {
    RecordingListener listener = new RecordingListener();
    SubscriptionHandle h = streaming(listener);
    DispatcherId id = h.dispatcherId();
    broker.send(batch(id, 1, txn(3, 101)));                 // gap: forces epoch 2
    await().until(() -> resets() == 2 && h.state() == SubscriptionState.STREAMING);

    broker.sendAll(java.util.List.of(batch(id, 1, txn(2, 150)), resolved(id, 1, 150, 2),
        batch(id, 2, txn(2, 101))));

    await().until(() -> listener.transactions.size() == 1);
    assertThat(listener.commitTs()).containsExactly(101L);
    assertThat(listener.resolved).doesNotContain(150L);
    assertThat(resets()).isEqualTo(2);
  }

  @Test
  void resolvedWithTheWrongLastSeqResets() throws Exception {
    RecordingListener listener = new RecordingListener();
    SubscriptionHandle h = streaming(listener);
    DispatcherId id = h.dispatcherId();
    broker.sendAll(java.util.List.of(batch(id, 1, txn(2, 101)), resolved(id, 1, 101, 3)));

    await().until(() -> resets() == 2);
    assertThat(broker.lastRequest(DispatcherAction.DISPATCHER_ACTION_RESET).getEpoch()).isEqualTo(2);
    assertThat(listener.resolved).isEmpty();
    assertThat(registry.get("sluice.dispatcher.resets").tag("reason", "wrong_last_seq").counter().count()).isEqualTo(1);
  }

  @Test
  void eventsBeforeTheHandshakeOfTheNewEpochReset() throws Exception {
    broker.autoControl = false;
    RecordingListener listener = new RecordingListener();
    SubscriptionHandle h = subscribe(Subscription.span(SPAN).from(100), listener);
    await().until(() -> broker.lastRequest(DispatcherAction.DISPATCHER_ACTION_REGISTER) != null);
    DispatcherRequest register = broker.lastRequest(DispatcherAction.DISPATCHER_ACTION_REGISTER);
    broker.send(ScriptedBroker.ack(register, AckStatus.ACK_STATUS_ACCEPTED));
    broker.send(BrokerMessage.newBuilder().setReady(dev.sluice.api.v1.Ready.newBuilder()
        .setDispatcherId(register.getDispatcherId())).build());
    await().until(() -> resets() == 1);

    broker.send(batch(h.dispatcherId(), 1, txn(2, 101)));    // no handshake first

    await().until(() -> resets() == 2);
    assertThat(broker.lastRequest(DispatcherAction.DISPATCHER_ACTION_RESET).getEpoch()).isEqualTo(2);
    assertThat(listener.transactions).isEmpty();
  }

  @Test
  void fragmentsArriveAsOneWholeTransaction() throws Exception {
    RecordingListener listener = new RecordingListener();
    SubscriptionHandle h = streaming(listener);
    broker.send(batch(h.dispatcherId(), 1, fragment(2, 101, 0, false, insert(0, 1, "a")),
        fragment(3, 101, 1, false, insert(1, 2, "b")), fragment(4, 101, 2, true, insert(2, 3, "c"))));

    await().until(() -> listener.transactions.size() == 1);
    Transaction t = listener.transactions.get(0);
    assertThat(t.complete()).isTrue();
    assertThat(t.rows()).extracting(r -> r.rowSeq()).containsExactly(0L, 1L, 2L);
    assertThat(t.checkpoint()).isEqualTo(Checkpoint.at(101));
  }

  @Test
  void aTransactionLargerThanTheLimitArrivesInPartsWithACursorCheckpoint() throws Exception {
    client = SluiceClient.connect(config().withMaxTransactionBytes(30), registry);
    RecordingListener listener = new RecordingListener();
    SubscriptionHandle h = streaming(listener);
    String big = "x".repeat(40);
    broker.send(batch(h.dispatcherId(), 1, fragment(2, 101, 0, false, insert(0, 1, big)),
        fragment(3, 101, 1, true, insert(1, 2, big))));

    await().until(() -> listener.transactions.size() == 2);
    Transaction part = listener.transactions.get(0);
    assertThat(part.complete()).isFalse();
    assertThat(part.lastPart()).isFalse();
    assertThat(part.checkpoint()).isEqualTo(Checkpoint.inside(101, 1));
    assertThat(listener.transactions.get(1).lastPart()).isTrue();
    assertThat(listener.transactions.get(1).checkpoint()).isEqualTo(Checkpoint.at(101));
  }

  @Test
  void aResetInsideAFragmentedTransactionSendsTheResumeCursorAndSkipsDeliveredRows() throws Exception {
    client = SluiceClient.connect(config().withMaxTransactionBytes(30), registry);
    RecordingListener listener = new RecordingListener().autoAck();
    SubscriptionHandle h = streaming(listener);
    DispatcherId id = h.dispatcherId();
    String big = "x".repeat(40);
    broker.send(batch(id, 1, fragment(2, 101, 0, false, insert(0, 1, big))));
    await().until(() -> h.acknowledged().equals(Checkpoint.inside(101, 1)));

    broker.send(batch(id, 1, fragment(4, 101, 1, true, insert(1, 2, big))));    // gap

    await().until(() -> resets() == 2 && h.state() == SubscriptionState.STREAMING);
    DispatcherRequest reset = broker.lastRequest(DispatcherAction.DISPATCHER_ACTION_RESET);
    assertThat(reset.getStartTs()).isEqualTo(100);
    assertThat(reset.getResumeCursor().getCommitTs()).isEqualTo(101);
    assertThat(reset.getResumeCursor().getNextRowSeq()).isEqualTo(1);
    // a broker that ignores the cursor and resends the whole transaction: row 0 must not come again
    broker.send(batch(id, 2, fragment(2, 101, 0, false, insert(0, 1, big)),
        fragment(3, 101, 1, true, insert(1, 2, big))));
    await().until(() -> listener.transactions.size() == 2);
    assertThat(listener.transactions.get(1).rows()).extracting(r -> r.rowSeq()).containsExactly(1L);
    assertThat(listener.transactions.get(1).lastPart()).isTrue();
  }

  /**
   * Issue #16 (7): ADD COLUMN, rows, SET NOT NULL in one transaction reach the listener in that order, all
   * at commit ts 101, each acknowledged at its exact place; a reset after the second DDL resumes past it
   * (next row seq 4), and a broker that sends the whole transaction again delivers nothing twice.
   */
  @Test
  void aDdlInsideATransactionIsDeliveredBetweenItsRowsAndResumesExactly() throws Exception {
    RecordingListener listener = new RecordingListener().autoAck();
    SubscriptionHandle h = streaming(listener);
    DispatcherId id = h.dispatcherId();
    assertThat(broker.received.get(0).getHello().getOptionalFeaturesList()).contains(ProtocolInfo.FEATURE_DDL_IN_TXN);
    dev.sluice.api.v1.TableInfo added = ORDERS.toBuilder().addColumns(dev.sluice.api.v1.ColumnInfo.newBuilder()
        .setName("first_name").setSourceType("text").setKind(dev.sluice.api.v1.ValueKind.VALUE_KIND_STRING)
        .setNullable(true)).build();
    dev.sluice.api.v1.TableInfo notNull = added.toBuilder().setColumns(2, added.getColumns(2).toBuilder()
        .setNullable(false)).build();
    dev.sluice.api.v1.DataEvent[] migration = {TestEvents.ddl(2, 101, 0, added),
        fragment(3, 101, 0, false, insert(1, 1, "a"), insert(2, 2, "b")), TestEvents.ddl(4, 101, 3, notNull),
        fragment(5, 101, 1, false, insert(4, 3, "c"))};
    broker.send(batch(id, 1, migration));
    // row 4 waits for the rest of its transaction; the rows and DDL before it are delivered and acknowledged
    await().until(() -> h.acknowledged().equals(Checkpoint.inside(101, 4)));
    assertThat(listener.calls).containsExactly("ddl@101/0", "txn@101[1,2]", "ddl@101/3");
    assertThat(listener.transactions.get(0).rows().get(0).after().size()).isEqualTo(2);
    assertThat(listener.transactions.get(0).tableInfo().getColumnsCount()).isEqualTo(3);
    assertThat(listener.ddls.get(1).tableInfoBefore()).isEqualTo(listener.ddls.get(0).tableInfoAfter());

    broker.send(batch(id, 1, fragment(7, 101, 2, true)));   // gap: seq 6 is missing
    await().until(() -> resets() == 2 && h.state() == SubscriptionState.STREAMING);
    DispatcherRequest reset = broker.lastRequest(DispatcherAction.DISPATCHER_ACTION_RESET);
    assertThat(reset.getResumeCursor().getCommitTs()).isEqualTo(101);
    assertThat(reset.getResumeCursor().getNextRowSeq()).isEqualTo(4);
    // a broker that ignores the cursor and resends the whole transaction
    dev.sluice.api.v1.DataEvent[] again = new dev.sluice.api.v1.DataEvent[5];
    for (int i = 0; i < 4; i++) {
      again[i] = migration[i];
    }
    again[4] = fragment(6, 101, 2, true, insert(6, 4, "d"));
    broker.send(batch(id, 2, again));
    await().until(() -> h.acknowledged().equals(Checkpoint.at(101)));
    assertThat(listener.calls).containsExactly("ddl@101/0", "txn@101[1,2]", "ddl@101/3", "txn@101[4,6] last");
    assertThat(listener.transactions.get(1).tableInfo().getColumns(2).getNullable()).isFalse();
  }

  @Test
  void aRejectedRegisterReachesTheListenerAsATypedErrorAndIsNotRetried() throws Exception {
    broker.autoControl = false;
    RecordingListener listener = new RecordingListener();
    SubscriptionHandle h = subscribe(Subscription.span(SPAN).from(5), listener);
    await().until(() -> broker.lastRequest(DispatcherAction.DISPATCHER_ACTION_REGISTER) != null);
    DispatcherRequest register = broker.lastRequest(DispatcherAction.DISPATCHER_ACTION_REGISTER);
    broker.send(BrokerMessage.newBuilder().setControlAck(ControlAck.newBuilder()
        .setDispatcherId(register.getDispatcherId()).setAction(register.getAction()).setEpoch(0)
        .setStatus(AckStatus.ACK_STATUS_REJECTED).setCode(ErrorCode.START_TS_BELOW_GC.toWire())
        .setReason("start ts 5 is below the GC point 50 of public.orders")).build());

    await().until(() -> !listener.errors.isEmpty());
    assertThat(listener.errors).singleElement().isInstanceOfSatisfying(SubscriptionRejectedException.class, e -> {
      assertThat(e.code()).isEqualTo(ErrorCode.START_TS_BELOW_GC);
      assertThat(e.getMessage()).contains("GC point 50").contains(h.dispatcherId().toString());
      assertThat(e.startTs()).isEqualTo(5);
    });
    assertThat(h.state()).isEqualTo(SubscriptionState.FAILED);
    assertThat(h.streaming().toCompletableFuture()).isCompletedExceptionally();
    int heartbeats = broker.heartbeatNanos.size();
    await().until(() -> broker.heartbeatNanos.size() >= heartbeats + 2);   // time passes on the stream
    assertThat(broker.requests(DispatcherAction.DISPATCHER_ACTION_REGISTER)).hasSize(1);
  }

  @Test
  void aTransientRejectionRetriesTheRegisterWithBackoff() throws Exception {
    broker.autoControl = false;
    RecordingListener listener = new RecordingListener();
    SubscriptionHandle h = subscribe(Subscription.span(SPAN).from(5), listener);
    await().until(() -> broker.lastRequest(DispatcherAction.DISPATCHER_ACTION_REGISTER) != null);
    DispatcherRequest register = broker.lastRequest(DispatcherAction.DISPATCHER_ACTION_REGISTER);
    broker.autoControl = true;
    broker.send(BrokerMessage.newBuilder().setControlAck(ControlAck.newBuilder()
        .setDispatcherId(register.getDispatcherId()).setAction(register.getAction())
        .setStatus(AckStatus.ACK_STATUS_REJECTED).setCode(ErrorCode.STORE_UNAVAILABLE.toWire())).build());

    h.streaming().toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertThat(broker.requests(DispatcherAction.DISPATCHER_ACTION_REGISTER)).hasSize(2);
    assertThat(listener.errors).isEmpty();
  }

  @Test
  void aTableNameIsResolvedThroughGetTableSchema() throws Exception {
    broker.tables.put("public.orders", TableEntry.newBuilder().setTableInfo(ORDERS).setCreatedTs(1).build());
    RecordingListener listener = new RecordingListener();
    SubscriptionHandle h = subscribe(Subscription.table("public.orders").from(100), listener);
    h.streaming().toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertThat(broker.lastRequest(DispatcherAction.DISPATCHER_ACTION_REGISTER).getSpan()).isEqualTo(SPAN.toProto());

    RecordingListener missing = new RecordingListener();
    subscribe(Subscription.table("public.nope").from(100), missing);
    await().until(() -> !missing.errors.isEmpty());
    assertThat(missing.errors.get(0).code()).isEqualTo(ErrorCode.UNKNOWN_TABLE);
    assertThat(missing.errors.get(0).getMessage()).contains("public.nope");
  }

  @Test
  void aSlowListenerShrinksItsCreditAndAcknowledgingPastDeliveryIsRefused() throws Exception {
    client = SluiceClient.connect(config().withDispatcherQueueBytes(64 * 1024), registry);
    RecordingListener listener = new RecordingListener();
    listener.gate = new CountDownLatch(1);
    SubscriptionHandle h = streaming(listener);
    broker.send(batch(h.dispatcherId(), 1, txn(2, 101), txn(3, 102), txn(4, 103)));
    await().until(() -> h.stats().eventsReceived() == 3);
    int reportsBefore = broker.creditNanos.size();
    await().until(() -> broker.creditNanos.size() > reportsBefore + 1);

    var credit = lastCredit();
    assertThat(credit.getEpoch()).isEqualTo(1);
    assertThat(credit.getReceivedBytes()).isPositive();
    assertThat(credit.getAvailableBytes()).isLessThan(64 * 1024);
    assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> h.acknowledge(103)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("delivered");

    listener.gate.countDown();
    await().until(() -> listener.transactions.size() == 3);
    int after = broker.creditNanos.size();
    await().until(() -> broker.creditNanos.size() > after + 1);
    assertThat(lastCredit().getAvailableBytes()).isEqualTo(64 * 1024);
  }

  @Test
  void closeSendsRemoveAndStopsDelivery() throws Exception {
    RecordingListener listener = new RecordingListener();
    SubscriptionHandle h = streaming(listener);
    h.close();
    DispatcherRequest remove = broker.lastRequest(DispatcherAction.DISPATCHER_ACTION_REMOVE);
    assertThat(remove.getEpoch()).isEqualTo(1);
    assertThat(h.state()).isEqualTo(SubscriptionState.CLOSED);
    assertThat(listener.errors).isEmpty();
  }

  private dev.sluice.api.v1.DispatcherCredit lastCredit() {
    var reports = broker.messages(CollectorMessage::hasCreditReport);
    var report = reports.get(reports.size() - 1).getCreditReport();
    assertThat(report.getChangefeedsList()).extracting(c -> c.getChangefeedId()).containsExactly("cf1");
    return report.getDispatchers(0);
  }
}
