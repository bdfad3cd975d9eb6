package dev.sluice.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.v1.EventServiceGrpc;
import dev.sluice.api.v1.Member;
import dev.sluice.api.v1.TopologyRequest;
import dev.sluice.broker.changefeed.ChangefeedConfig;
import dev.sluice.broker.changefeed.LocalHostBroker;
import dev.sluice.broker.cli.AdminClient.Response;
import dev.sluice.broker.testing.RunningBroker;
import dev.sluice.dispatcher.BrokerAddress;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node listening on every interface behind an address clients know it by (NAT, proxy, service):
 * GetTopology and the admin API announce the advertised addresses, and the changefeeds it hosts reach
 * their own event service through the listener, not through the advertised name.
 */
class AdvertisedAddressTest {

  // .invalid never resolves (RFC 6761): a hosted changefeed that dialled it would never stream
  private static final String ADVERTISED = "sluice-1.invalid:18300";

  @Test
  void aWildcardListenerAnnouncesItsAdvertisedAddressesAndItsChangefeedsUseTheListener(@TempDir Path dir)
      throws Exception {
    ServeConfig serve = ServeConfig.ephemeral().withAdvertised(BrokerAddress.parse(ADVERTISED), null)
        .withPorts("0.0.0.0", 0, 0);
    // a wildcard bind without TLS and tokens needs --insecure (docs/SECURITY.md); addresses are the point here
    try (RunningBroker rb = RunningBroker.start(dir.resolve("broker"),
        ChangefeedConfig.defaults().withProgressInterval(Duration.ofMillis(100)), serve,
        dev.sluice.broker.security.SecurityConfig.none().withInsecure(true),
        "CREATE TABLE public.items (id int PRIMARY KEY, v text)")) {
      int grpcPort = rb.broker().eventService().port();
      int adminPort = rb.broker().admin().port();
      String announcedAdmin = "sluice-1.invalid:" + adminPort;

      ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", grpcPort).usePlaintext().build();
      Member me;
      try {
        me = EventServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
            .getTopology(TopologyRequest.getDefaultInstance()).getMembers(0);
      } finally {
        channel.shutdownNow();
      }
      assertThat(me.getGrpcAddress()).isEqualTo(ADVERTISED);
      assertThat(me.getAdminAddress()).isEqualTo(announcedAdmin);

      JsonObject member = rb.admin().send("GET", "/api/v1/members", null).json().getJsonArray("members")
          .getJsonObject(0);
      assertThat(member.getString("grpc_address")).isEqualTo(ADVERTISED);
      assertThat(member.getString("admin_address")).isEqualTo(announcedAdmin);

      assertThat(rb.broker().eventService().listenAddress()).isEqualTo("127.0.0.1:" + grpcPort);
      assertThat(new LocalHostBroker(rb.broker().eventService(), rb.broker().eventStore(), rb.broker().schemaStore())
          .grpcAddress()).isEqualTo("127.0.0.1:" + grpcPort);

      Path out = dir.resolve("items.jsonl");
      Response created = rb.admin().send("POST", "/api/v1/changefeeds", new JsonObject().put("id", "adv")
          .put("include", new JsonArray().add("public.items")).put("sink_uri", "jsonl:file:" + out)
          .put("options", new JsonObject().put("table_poll_interval_ms", 100)));
      assertThat(created.status()).as(created.body()).isEqualTo(201);
      rb.upstream().txn("INSERT INTO public.items VALUES (7, 'seven')");
      await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(out) && Files.readString(out).contains("\"id\":7"));
    }
  }
}
