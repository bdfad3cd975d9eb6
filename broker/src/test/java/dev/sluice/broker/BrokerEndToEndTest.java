package dev.sluice.broker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.TableSpan;
import dev.sluice.api.v1.AckStatus;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.DataEvent;
import dev.sluice.api.v1.DdlEvent;
import dev.sluice.api.v1.EventServiceGrpc;
import dev.sluice.api.v1.Handshake;
import dev.sluice.api.v1.RowChange;
import dev.sluice.api.v1.RowOp;
import dev.sluice.api.v1.TableInfo;
import dev.sluice.api.v1.TableSchemaRequest;
import dev.sluice.api.v1.TopologyRequest;
import dev.sluice.broker.capture.CaptureConfig;
import dev.sluice.broker.capture.TestPostgres;
import dev.sluice.broker.testing.ReceiverRules;
import dev.sluice.broker.testing.TestCollector;
import dev.sluice.broker.upstream.DemoWorkloadConfig;
import dev.sluice.broker.upstream.UpstreamConfig;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole broker on a real PostgreSQL, read by a stock grpc-java client over a real socket:
 * register -> Ready -> reset -> Handshake(table info) -> DML, DDL and Resolved in protocol order for a
 * table written with SQL.
 */
class BrokerEndToEndTest {

  @Test
  void aStockClientStreamsRowsAndDdlOfATableWrittenInPostgres(@TempDir Path dir) throws Exception {
    try (TestPostgres pg = TestPostgres.start()) {
      pg.exec("CREATE TABLE public.items (id int PRIMARY KEY, v text)");
      BrokerConfig config = new BrokerConfig("node-e2e", dir, UpstreamConfig.external(pg.jdbcUrl(), "postgres", null),
          CaptureConfig.defaults("node-e2e").withHeartbeatInterval(Duration.ofMillis(50)), false,
          DemoWorkloadConfig.defaults());
      try (Broker broker = new Broker(config)) {
        broker.start();
        int port = broker.eventService().port();
        ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
        TableInfo items;
        long start;
        try {
          var stub = EventServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
          items = stub.getTableSchema(TableSchemaRequest.newBuilder().setTableName("public.items").build());
          start = stub.getTopology(TopologyRequest.getDefaultInstance()).getMembers(0).getResolvedTs();
        } finally {
          channel.shutdownNow();
        }
        assertThat(items.getColumnsList()).extracting(c -> c.getName()).containsExactly("id", "v");

        try (TestCollector c = TestCollector.connect(port)) {
          c.hello("e2e");
          DispatcherId id = DispatcherId.random();
          ReceiverRules rules = new ReceiverRules();
          assertThat(c.ack(TestCollector.register(id, TableSpan.wholeTable(items.getTableId()), start).build())
              .getStatus()).isEqualTo(AckStatus.ACK_STATUS_ACCEPTED);
          c.next(BrokerMessage::hasReady);
          c.request(TestCollector.reset(id, 1, start).build());
          Handshake hs = c.next(BrokerMessage::hasHandshake).getHandshake();
          rules.accept(BrokerMessage.newBuilder().setHandshake(hs).build());
          assertThat(hs.getTableInfo().getTableName()).isEqualTo("items");
          assertThat(hs.getTableInfo().getColumnsCount()).isEqualTo(2);
          c.credit(id, 1, 16 << 20, 0);

          long first = pg.txn("INSERT INTO public.items VALUES (1, 'a'), (2, 'b')");
          long alter = pg.txn("ALTER TABLE public.items ADD COLUMN note text");
          pg.txn("INSERT INTO public.items VALUES (3, 'c', 'n3')", "UPDATE public.items SET v = 'bb' WHERE id = 2");
          long last = pg.txn("DELETE FROM public.items WHERE id = 1");

          List<DataEvent> events = new ArrayList<>();
          c.takeUntil(m -> {
            rules.accept(m);
            if (m.hasEventBatch()) {
              events.addAll(m.getEventBatch().getEventsList());
            }
          }, m -> rules.resolvedTs(id) >= last, Duration.ofSeconds(60));

          assertThat(rules.violations()).isEmpty();
          List<String> shape = new ArrayList<>();
          for (DataEvent e : events) {
            shape.add(e.hasDdl() ? "DDL" : e.getDml().getRowsList().stream().map(r -> r.getOp().name().substring(7))
                .reduce((x, y) -> x + "+" + y).orElse("EMPTY"));
          }
          assertThat(shape).containsExactly("INSERT+INSERT", "DDL", "INSERT+UPDATE", "DELETE");
          DdlEvent ddl = events.get(1).getDdl();
          assertThat(ddl.getQuery()).containsIgnoringCase("ADD COLUMN note");
          assertThat(ddl.getTableInfoAfter().getColumnsList()).extracting(col -> col.getName())
              .containsExactly("id", "v", "note");
          assertThat(ddl.getCommitTs()).isGreaterThan(first).isLessThanOrEqualTo(alter); // txn() returns the LSN after it
          assertThat(events.get(0).getDml().getCommitTs()).isLessThanOrEqualTo(first);
          RowChange inserted = events.get(2).getDml().getRows(0);
          assertThat(inserted.getAfterCount()).isEqualTo(3);
          assertThat(inserted.getAfter(2).getStringValue()).isEqualTo("n3");
          assertThat(events.get(2).getDml().getTableInfoVersion()).isEqualTo(ddl.getCommitTs());
          RowChange deleted = events.get(3).getDml().getRows(0);
          assertThat(deleted.getOp()).isEqualTo(RowOp.ROW_OP_DELETE);
          assertThat(deleted.getBefore(0).getInt64Value()).isEqualTo(1);
        }
      }
    }
  }
}
