package dev.sluice.it.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.v1.AckStatus;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.CollectorMessage;
import dev.sluice.api.v1.CreditReport;
import dev.sluice.api.v1.DispatcherAction;
import dev.sluice.api.v1.DispatcherCredit;
import dev.sluice.api.v1.DispatcherRequest;
import dev.sluice.dispatcher.SubscriptionState;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.it.ChangefeedSetup;
import dev.sluice.it.workload.SteadyWorkload;
import io.grpc.Status;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scenario 9, bad clients against a broker process while a well-behaved dispatcher streams: a TCP
 * client that sends garbage bytes (not HTTP/2), a gRPC client that sends an unparseable message, one
 * that sends a dispatcher request before Hello, one that registers with an invalid span, and one that
 * subscribes with a large credit and never reads.
 *
 * <p>Asserted: each bad stream is refused (closed or StreamError / REJECTED ack) without affecting the
 * others; the broker process stays alive and keeps serving; the good dispatcher never resets after its
 * start (same epoch from start to end), keeps receiving while the bad clients are connected, and its
 * copy equals upstream at the end.
 */
class BadClientsIT {

  @RegisterExtension
  final ItLogs logs = new ItLogs();

  @Test
  void badClientsDoNotHurtTheBrokerOrOtherDispatchers() throws Exception {
    try (Rig rig = Rig.start(logs)) {
      SteadyWorkload workload = SteadyWorkload.create(rig.upstream, "bad", 1, 500).withNoteBytes(512);
      String table = workload.table(0);
      long tableId = rig.tableId(table);
      long startTs = rig.upstream.currentLsn();
      SimpleMeterRegistry meters = new SimpleMeterRegistry();
      ChangefeedSetup setup = ChangefeedSetup.of(rig.broker.grpcAddress(), rig.downstream.jdbcUrl(), "good", table);
      int port = rig.broker.grpcPort();
      List<RawCollector> bad = new ArrayList<>();
      try (SluiceClient good = SluiceClient.connect(setup.clientConfig().withCollectorId("good"), meters)) {
        ReplicaListener l = new ReplicaListener(table, startTs, "v");
        l.handle = good.subscribe(Subscription.table(table).from(startTs), l);
        l.handle.streaming().toCompletableFuture().get(60, TimeUnit.SECONDS);
        long epoch = l.handle.stats().epoch();
        workload.paced(50).start(2);

        // 1. garbage bytes on a raw TCP connection: not even HTTP/2
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
          s.setSoTimeout(10_000);
          OutputStream out = s.getOutputStream();
          byte[] junk = new byte[64 * 1024];
          new Random(9).nextBytes(junk);
          out.write(junk);
          out.flush();
          assertThat(s.getInputStream().readAllBytes().length).as("bytes the broker answers garbage with")
              .isLessThan(4096);   // it closes the connection (a GOAWAY at most), never echoes or hangs
        }

        // 2. an unparseable message on a valid Connect stream
        RawCollector garbage = RawCollector.connect(port, true);
        bad.add(garbage);
        byte[] junk = new byte[1000];
        new Random(3).nextBytes(junk);
        garbage.sendRaw(junk);
        Status garbageStatus = garbage.closed(Duration.ofSeconds(30));
        assertThat(garbageStatus).as("stream after an unparseable message").isNotNull();
        assertThat(garbageStatus.isOk()).isFalse();

        // 3. a dispatcher request before Hello: a protocol violation
        RawCollector noHello = RawCollector.connect(port, true);
        bad.add(noHello);
        noHello.send(CollectorMessage.newBuilder().setDispatcherRequest(DispatcherRequest.newBuilder()
            .setDispatcherId(DispatcherId.random().toProto()).setAction(DispatcherAction.DISPATCHER_ACTION_REGISTER)
            .setSpan(dev.sluice.api.TableSpan.wholeTable(tableId).toProto()).setStartTs(startTs)).build());
        BrokerMessage error = noHello.next(m -> m.hasStreamError(), Duration.ofSeconds(30));
        assertThat(error.getStreamError().getDetail()).as("StreamError detail").isNotEmpty();
        assertThat(noHello.closed(Duration.ofSeconds(30))).as("stream closed after the violation").isNotNull();

        // 4. an invalid span (hash_lo >= hash_hi): rejected, the stream stays usable
        RawCollector badSpan = RawCollector.connect(port, true);
        bad.add(badSpan);
        badSpan.hello("bad-span");
        badSpan.next(BrokerMessage::hasWelcome, Duration.ofSeconds(30));
        DispatcherId badId = DispatcherId.random();
        badSpan.send(CollectorMessage.newBuilder().setDispatcherRequest(DispatcherRequest.newBuilder()
            .setDispatcherId(badId.toProto()).setAction(DispatcherAction.DISPATCHER_ACTION_REGISTER).setChangefeedId("bad")
            .setSpan(dev.sluice.api.v1.TableSpan.newBuilder().setTableId(tableId).setHashLo(100).setHashHi(10))
            .setStartTs(startTs)).build());
        BrokerMessage ack = badSpan.next(m -> m.hasControlAck(), Duration.ofSeconds(30));
        assertThat(ack.getControlAck().getStatus()).isEqualTo(AckStatus.ACK_STATUS_REJECTED);
        assertThat(ack.getControlAck().getReason()).isNotEmpty();

        // 5. a collector that subscribes with a large credit and never reads: its window fills, nobody else waits
        RawCollector deaf = RawCollector.connect(port, false);
        bad.add(deaf);
        deaf.hello("never-reads");
        DispatcherId deafId = DispatcherId.random();
        deaf.send(CollectorMessage.newBuilder().setDispatcherRequest(DispatcherRequest.newBuilder()
            .setDispatcherId(deafId.toProto()).setAction(DispatcherAction.DISPATCHER_ACTION_REGISTER).setChangefeedId("deaf")
            .setSpan(dev.sluice.api.TableSpan.wholeTable(tableId).toProto()).setStartTs(startTs)).build());
        deaf.send(CollectorMessage.newBuilder().setDispatcherRequest(DispatcherRequest.newBuilder()
            .setDispatcherId(deafId.toProto()).setAction(DispatcherAction.DISPATCHER_ACTION_RESET).setEpoch(1)
            .setStartTs(startTs)).build());
        deaf.send(CollectorMessage.newBuilder().setCreditReport(CreditReport.newBuilder().addDispatchers(
            DispatcherCredit.newBuilder().setDispatcherId(deafId.toProto()).setEpoch(1).setAvailableBytes(1L << 30)))
            .build());

        long txns = l.transactions.get();
        await().atMost(Duration.ofSeconds(30)).until(() -> l.transactions.get() > txns + 200);   // still served
        workload.stop();
        long end = rig.upstream.currentLsn();
        await().atMost(Duration.ofSeconds(60)).until(() -> l.resolvedTs() >= end);
        assertThat(l.violations()).as("delivery contract of the good dispatcher").isEmpty();
        assertThat(l.rows).isEqualTo(rig.upstreamRows(table, "v"));
        assertThat(l.handle.stats().state()).isEqualTo(SubscriptionState.STREAMING);
        assertThat(l.handle.stats().epoch()).as("the good dispatcher never reset").isEqualTo(epoch);
        assertThat(rig.broker.isAlive()).as("broker process alive").isTrue();
        assertThat(rig.broker.heapUsedAfterGc()).as("broker live heap").isLessThan(256L << 20);
      } finally {
        bad.forEach(RawCollector::close);
      }
    }
  }
}
