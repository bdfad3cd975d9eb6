package dev.sluice.broker.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.ProtocolInfo;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.CollectorMessage;
import dev.sluice.api.v1.EventServiceGrpc;
import dev.sluice.api.v1.HeartbeatBatch;
import dev.sluice.api.v1.Hello;
import dev.sluice.api.v1.ListTablesRequest;
import dev.sluice.api.v1.TopologyRequest;
import dev.sluice.broker.NodeIdentity;
import dev.sluice.broker.control.EventServiceConfig;
import dev.sluice.broker.server.EventService;
import dev.sluice.broker.testing.StoreFixture;
import dev.sluice.broker.testing.TestCollector;
import dev.sluice.broker.testing.TestPki;
import dev.sluice.dispatcher.ClientConfig;
import dev.sluice.dispatcher.ClientSecurity;
import dev.sluice.dispatcher.SluiceClient;
import io.grpc.ChannelCredentials;
import io.grpc.ClientInterceptors;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.grpc.stub.MetadataUtils;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.grpc.server.GrpcServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * TLS on the gRPC port with real sockets and certificates made here: a stock grpc-java client with TLS
 * and a token; untrusted and expired certificates refused; mutual TLS without or with a bad client
 * certificate refused, a mapped one admitted as its principal; a certificate rotated on disk served to
 * new connections while an open stream goes on, and bad new files refused while the old one stays.
 */
class TlsEndpointTest {

  private static final int FAST = TokenHash.MIN_ITERATIONS;
  private static final String TOKEN = "reader-token-for-tls-tests";

  private Path dir;
  private Vertx vertx;
  private StoreFixture stores;
  private EventService service;
  private CertificateReloader reloader;
  private SimpleMeterRegistry meters;
  private TestPki.Ca ca;
  private TestPki.Ca clientCa;
  private Path caFile;
  private TestPki.PemFiles serverFiles;

  @BeforeEach
  void setUp() throws IOException {
    dir = Files.createTempDirectory(Path.of("/tmp"), "sec-t");
    vertx = Vertx.vertx();
    stores = new StoreFixture(dir.resolve("s"));
    stores.createTable(100, "orders");
    meters = new SimpleMeterRegistry();
    ca = TestPki.ca("Broker CA");
    clientCa = TestPki.ca("Client CA");
    caFile = ca.write(dir, "ca");
    serverFiles = ca.server("broker-1", Duration.ofDays(1)).write(dir, "broker");
  }

  @AfterEach
  void tearDown() throws Exception {
    if (service != null) {
      service.close().await(20, TimeUnit.SECONDS);
    }
    if (reloader != null) {
      reloader.close();
    }
    vertx.close().await(20, TimeUnit.SECONDS);
    stores.close();
  }

  private void start(TlsConfig tls) throws Exception {
    reloader = CertificateReloader.start(vertx, tls, meters, Instant::now);
    List<PrincipalConfig> principals = List.of(
        new PrincipalConfig("reader", Set.of(Role.READER), null, TokenHash.of(TOKEN.toCharArray(), FAST), null, null),
        new PrincipalConfig("svc", Set.of(Role.READER), List.of("public.*"), null, "CN=svc,O=Sluice Tests", null));
    ServerSecurity security = new ServerSecurity(new AccessGuard(Authenticator.of(principals), AuditLog.system()),
        reloader);
    service = EventService.start(vertx, EventServiceConfig.defaults(), NodeIdentity.fresh("node-t", null, null),
        "127.0.0.1", 0, stores.events, stores.schema, stores.meters, security).await(20, TimeUnit.SECONDS);
  }

  private ManagedChannel channel(ChannelCredentials creds) {
    return Grpc.newChannelBuilderForAddress("127.0.0.1", service.port(), creds).build();
  }

  private static ChannelCredentials trusting(Path ca) throws IOException {
    return TlsChannelCredentials.newBuilder().trustManager(ca.toFile()).build();
  }

  private static Metadata token(String t) {
    Metadata md = new Metadata();
    if (t != null) {
      md.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + t);
    }
    return md;
  }

  private static EventServiceGrpc.EventServiceBlockingStub stub(ManagedChannel ch, String token) {
    return EventServiceGrpc.newBlockingStub(ClientInterceptors.intercept(ch,
        MetadataUtils.newAttachHeadersInterceptor(token(token)))).withDeadlineAfter(20, TimeUnit.SECONDS);
  }

  private static void close(ManagedChannel ch) throws InterruptedException {
    ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  @Test
  void aStockGrpcJavaClientWithTlsAndATokenReadsTopologyAndTablesAndOpensTheStream() throws Exception {
    start(TlsConfig.of(serverFiles.cert(), serverFiles.key()));
    ManagedChannel ch = channel(trusting(caFile));
    try {
      assertThat(stub(ch, TOKEN).getTopology(TopologyRequest.getDefaultInstance()).getThisNodeId()).isEqualTo("node-t");
      assertThat(stub(ch, TOKEN).listTables(ListTablesRequest.getDefaultInstance()).getTablesCount()).isEqualTo(1);
      assertThatThrownBy(() -> stub(ch, null).getTopology(TopologyRequest.getDefaultInstance()))
          .isInstanceOfSatisfying(StatusRuntimeException.class, e ->
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED));
    } finally {
      close(ch);
    }
    TestCollector c = TestCollector.over(channel(trusting(caFile)), token(TOKEN));
    try {
      assertThat(c.hello("tls-collector").getBrokerId()).isEqualTo("node-t");
    } finally {
      c.close();
    }
  }

  @Test
  void thePlaintextPortIsGoneAndAnUntrustedCertificateIsRefused() throws Exception {
    start(TlsConfig.of(serverFiles.cert(), serverFiles.key()));
    Path otherCa = TestPki.ca("Other CA").write(dir, "other-ca");
    for (ChannelCredentials creds : List.of(trusting(otherCa), InsecureChannelCredentials.create())) {
      ManagedChannel ch = channel(creds);
      try {
        assertThatThrownBy(() -> stub(ch, TOKEN).getTopology(TopologyRequest.getDefaultInstance()))
            .isInstanceOfSatisfying(StatusRuntimeException.class, e ->
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
      } finally {
        close(ch);
      }
    }
    // the library refuses it too: no call succeeds with a CA that did not sign the broker's certificate
    try (SluiceClient client = SluiceClient.connect(ClientConfig.of("127.0.0.1:" + service.port())
        .withSecurity(ClientSecurity.tls(otherCa).withToken(TOKEN)).withConnectTimeout(Duration.ofSeconds(3)))) {
      assertThatThrownBy(() -> client.topology().toCompletableFuture().get(20, TimeUnit.SECONDS))
          .hasStackTraceContaining("SSLHandshakeException").hasStackTraceContaining("PKIX path building failed")
          .hasMessageContaining("not signed by a CA the client trusts");
    }
    try (SluiceClient client = SluiceClient.connect(ClientConfig.of("127.0.0.1:" + service.port())
        .withSecurity(ClientSecurity.tls(caFile).withToken(TOKEN)))) {
      assertThat(client.topology().toCompletableFuture().get(20, TimeUnit.SECONDS).getThisNodeId()).isEqualTo("node-t");
    }
  }

  @Test
  void anExpiredCertificateIsRefusedByTheBrokerAtStartAndByTheClient() throws Exception {
    TestPki.PemFiles expired = ca.expired("broker-old", true).write(dir, "expired");
    assertThatThrownBy(() -> CertificateReloader.start(vertx, TlsConfig.of(expired.cert(), expired.key()), meters,
        Instant::now)).hasMessageContaining("expired").hasMessageContaining("renew");
    // a server that serves an expired certificate anyway (not Sluice's): the library refuses it
    HttpServer raw = vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0).setSsl(true)
        .setUseAlpn(true).setKeyCertOptions(new io.vertx.core.net.PemKeyCertOptions().setCertPath(expired.cert()
            .toString()).setKeyPath(expired.key().toString())))
        .requestHandler(GrpcServer.server(vertx)).listen().await(10, TimeUnit.SECONDS);
    try (SluiceClient client = SluiceClient.connect(ClientConfig.of("127.0.0.1:" + raw.actualPort())
        .withSecurity(ClientSecurity.tls(caFile)).withConnectTimeout(Duration.ofSeconds(3)))) {
      assertThatThrownBy(() -> client.topology().toCompletableFuture().get(20, TimeUnit.SECONDS))
          .hasStackTraceContaining("SSLHandshakeException").hasStackTraceContaining("CertificateExpiredException")
          .hasMessageContaining("the broker's certificate has expired");
    } finally {
      raw.close();
    }
  }

  @Test
  void mutualTlsRefusesNoBadOrExpiredClientCertificatesAndAdmitsAMappedOne() throws Exception {
    Path clientCaFile = clientCa.write(dir, "client-ca");
    start(TlsConfig.of(serverFiles.cert(), serverFiles.key()).withClientCa(clientCaFile));
    TestPki.PemFiles svc = clientCa.client("svc", Duration.ofDays(1)).write(dir, "svc");
    TestPki.PemFiles stranger = clientCa.client("stranger", Duration.ofDays(1)).write(dir, "stranger");
    TestPki.PemFiles old = clientCa.expired("svc", false).write(dir, "svc-old");
    TestPki.PemFiles foreign = ca.client("svc", Duration.ofDays(1)).write(dir, "svc-foreign");

    record Case(String name, ChannelCredentials creds, String token, Status.Code expected) {}
    List<Case> cases = List.of(
        new Case("no client certificate, even with a token", trusting(caFile), TOKEN, Status.Code.UNAVAILABLE),
        new Case("an expired client certificate", clientCreds(old), null, Status.Code.UNAVAILABLE),
        new Case("a certificate of another CA", clientCreds(foreign), null, Status.Code.UNAVAILABLE),
        new Case("a certificate mapped to no principal, no token", clientCreds(stranger), null,
            Status.Code.UNAUTHENTICATED),
        new Case("an unmapped certificate with a token", clientCreds(stranger), TOKEN, Status.Code.OK),
        new Case("a certificate whose subject stands for svc", clientCreds(svc), null, Status.Code.OK),
        new Case("a mapped certificate with a wrong token: the token decides", clientCreds(svc), "wrong-token-xyz",
            Status.Code.UNAUTHENTICATED));
    for (Case c : cases) {
      ManagedChannel ch = channel(c.creds());
      try {
        Status.Code got;
        String why = "";
        try {
          stub(ch, c.token()).getTopology(TopologyRequest.getDefaultInstance());
          got = Status.Code.OK;
        } catch (StatusRuntimeException e) {
          got = e.getStatus().getCode();
          why = String.valueOf(e.getStatus().getDescription());
        }
        assertThat(got).as(c.name() + ": " + why).isEqualTo(c.expected());
      } finally {
        close(ch);
      }
    }
  }

  private ChannelCredentials clientCreds(TestPki.PemFiles f) throws IOException {
    return TlsChannelCredentials.newBuilder().trustManager(caFile.toFile()).keyManager(f.cert().toFile(),
        f.key().toFile()).build();
  }

  @Test
  void aRotatedCertificateReachesNewConnectionsWhileAnOpenStreamGoesOn() throws Exception {
    start(TlsConfig.of(serverFiles.cert(), serverFiles.key()).withReloadInterval(Duration.ofMillis(100)));
    TestCollector open = TestCollector.over(channel(trusting(caFile)), token(TOKEN));
    try {
      open.hello("long-lived");
      assertThat(servedSubject()).contains("CN=broker-1");

      // files that do not go together are refused; the old certificate stays
      TestPki.Issued next = ca.server("broker-2", Duration.ofDays(2));
      TestPki.writeAtomically(serverFiles.cert(), TestPki.pem(next.cert()) + TestPki.pem(ca.cert()));
      await().atMost(Duration.ofSeconds(10)).until(() -> count("refused") == 1);
      assertThat(servedSubject()).contains("CN=broker-1");

      TestPki.writeAtomically(serverFiles.key(), TestPki.pem(next.keys().getPrivate()));
      await().atMost(Duration.ofSeconds(10)).until(() -> count("applied") == 1);
      assertThat(servedSubject()).contains("CN=broker-2");
      assertThat(reloader.current().subject()).contains("CN=broker-2");

      // a new gRPC connection negotiates HTTP/2 with the new certificate and is served
      ManagedChannel fresh = channel(trusting(caFile));
      try {
        assertThat(stub(fresh, TOKEN).getTopology(TopologyRequest.getDefaultInstance()).getThisNodeId())
            .isEqualTo("node-t");
      } finally {
        close(fresh);
      }
      // the stream opened before the rotation still answers
      open.send(CollectorMessage.newBuilder().setHeartbeatBatch(HeartbeatBatch.getDefaultInstance()).build());
      assertThat(open.next(BrokerMessage::hasHeartbeatResponse)).isNotNull();
      open.assertOpen();
    } finally {
      open.close();
    }
  }

  private double count(String outcome) {
    return meters.counter("sluice.tls.reloads", "outcome", outcome).count();
  }

  /** The subject of the certificate a new TLS connection is served. */
  private String servedSubject() throws Exception {
    KeyStore ks = KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    ks.setCertificateEntry("ca", ca.cert());
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(ks);
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(null, tmf.getTrustManagers(), null);
    try (SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", service.port())) {
      s.startHandshake();
      return ((X509Certificate) s.getSession().getPeerCertificates()[0]).getSubjectX500Principal().getName();
    }
  }
}
