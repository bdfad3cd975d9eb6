package dev.sluice.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.error.SluiceException;
import dev.sluice.broker.capture.CaptureConfig;
import dev.sluice.broker.capture.TestPostgres;
import dev.sluice.broker.upstream.DemoWorkloadConfig;
import dev.sluice.broker.upstream.UpstreamConfig;
import dev.sluice.dispatcher.ChangeListener;
import dev.sluice.dispatcher.ClientConfig;
import dev.sluice.dispatcher.DdlChange;
import dev.sluice.dispatcher.RowChangeView;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.dispatcher.Subscription;
import dev.sluice.dispatcher.SubscriptionHandle;
import dev.sluice.dispatcher.Transaction;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The dispatcher library against the real broker: whole transactions, DDL, watermarks, resume. */
class LibraryAgainstBrokerTest {

  @Test
  void aSubscriptionReceivesTransactionsAndDdlAndResumesAfterTheBrokerRestarts(@TempDir Path dir) throws Exception {
    try (TestPostgres pg = TestPostgres.start()) {
      pg.exec("CREATE TABLE public.items (id int PRIMARY KEY, v text)");
      BrokerConfig config = new BrokerConfig("node-lib", dir, UpstreamConfig.external(pg.jdbcUrl(), "postgres", null),
          CaptureConfig.defaults("node-lib").withHeartbeatInterval(Duration.ofMillis(50)), false,
          DemoWorkloadConfig.defaults());
      List<Long> keys = new CopyOnWriteArrayList<>();
      List<String> ddls = new CopyOnWriteArrayList<>();
      AtomicLong resolved = new AtomicLong();
      AtomicReference<SluiceException> failure = new AtomicReference<>();
      SubscriptionHandle[] handle = new SubscriptionHandle[1];
      ChangeListener listener = new ChangeListener() {
        @Override
        public void onTransaction(Transaction txn) {
          for (RowChangeView row : txn.rows()) {
            keys.add(row.after().getLong("id"));
          }
          handle[0].acknowledge(txn.checkpoint());
        }

        @Override
        public void onDdl(DdlChange ddl) {
          ddls.add(ddl.query());
        }

        @Override
        public void onResolved(long ts) {
          resolved.set(ts);
          handle[0].acknowledge(ts);
        }

        @Override
        public void onError(SluiceException e) {
          failure.set(e);
        }
      };
      int port;
      Broker broker = new Broker(config);
      try {
        broker.start();
        port = broker.eventService().port();
        long start = broker.eventStore().resolvedTs();
        try (SluiceClient client = SluiceClient.connect(ClientConfig.of("127.0.0.1:" + port).withCollectorId("lib"))) {
          handle[0] = client.subscribe(Subscription.table("public.items").from(start).creditGroup("lib"), listener);
          handle[0].streaming().toCompletableFuture().get(30, TimeUnit.SECONDS);
          pg.txn("INSERT INTO public.items VALUES (1, 'a'), (2, 'b')");
          pg.txn("ALTER TABLE public.items ADD COLUMN note text");
          long last = pg.txn("INSERT INTO public.items VALUES (3, 'c', 'n')");
          await().atMost(Duration.ofSeconds(30)).until(() -> resolved.get() >= last || failure.get() != null);
          assertThat(failure.get()).isNull();
          assertThat(keys).containsExactly(1L, 2L, 3L);
          assertThat(ddls).singleElement().satisfies(q -> assertThat(q).containsIgnoringCase("ADD COLUMN note"));

          // the broker restarts (new incarnation, same stores): the subscription resumes from its checkpoint
          broker.close();
          broker = new Broker(config.withServe(ServeConfig.ephemeral().withPorts("127.0.0.1", port, 0)));
          broker.start();
          long after = pg.txn("INSERT INTO public.items VALUES (4, 'd', 'n')");
          await().atMost(Duration.ofSeconds(60)).until(() -> resolved.get() >= after || failure.get() != null);
          assertThat(failure.get()).isNull();
          assertThat(keys).containsExactly(1L, 2L, 3L, 4L);
        }
      } finally {
        broker.close();
      }
    }
  }
}
