package dev.sluice.broker.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.broker.testing.TestPki;
import dev.sluice.dispatcher.ClientSecurity;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Admin forwarding to a member whose admin API serves TLS, over real sockets with certificates made
 * here: the forwarder dials with the node's client TLS settings (the CA it trusts, its certificate for
 * mutual TLS) and relays the caller's {@code Authorization}, not a token of its own. The member is a
 * real Vert.x HTTPS server standing in for the other node's admin API (it echoes what it received).
 * Before, the forwarder always spoke plaintext: with TLS on the admin ports every forwarded request
 * was answered 503 NODE_UNREACHABLE (the plaintext case below).
 */
class AdminForwarderTlsTest {

  private Vertx vertx;
  private Path dir;
  private TestPki.Ca ca;
  private Path caFile;
  private TestPki.PemFiles node;

  @BeforeEach
  void setUp() throws Exception {
    vertx = Vertx.vertx();
    dir = Files.createTempDirectory(Path.of("/tmp"), "fwd-t");
    ca = TestPki.ca("Cluster CA");
    caFile = ca.write(dir, "ca");
    node = ca.server("node", Duration.ofDays(1)).write(dir, "node");
  }

  @AfterEach
  void tearDown() throws Exception {
    vertx.close().await(20, TimeUnit.SECONDS);
  }

  /** The other member's admin API: HTTPS with the node certificate, optionally requiring a client certificate. */
  private int member(boolean mutual) throws Exception {
    HttpServerOptions o = new HttpServerOptions().setHost("127.0.0.1").setPort(0).setSsl(true)
        .setKeyCertOptions(new PemKeyCertOptions().setCertPath(node.cert().toString()).setKeyPath(node.key().toString()));
    if (mutual) {
      o.setTrustOptions(new PemTrustOptions().addCertPath(caFile.toString())).setClientAuth(ClientAuth.REQUIRED);
    }
    HttpServer s = vertx.createHttpServer(o).requestHandler(req -> req.body().onSuccess(b -> req.response()
        .putHeader("Content-Type", "application/json").setStatusCode(200)
        .end(new JsonObject().put("authorization", req.getHeader("Authorization"))
            .put("forwarded_by", req.getHeader(AdminForwarder.FORWARDED_BY)).put("body", b.toString())
            .put("client_certificate", req.isSSL() && mutual).encode())))
        .listen().await(20, TimeUnit.SECONDS);
    return s.actualPort();
  }

  /** This node's admin API in front: every request is forwarded to the member at {@code port}. */
  private int front(ClientSecurity peers, int port) throws Exception {
    AdminForwarder forwarder = new AdminForwarder(vertx, "n1", peers);
    Router r = Router.router(vertx);
    r.route().handler(BodyHandler.create(false));
    r.route().handler(ctx -> forwarder.forward(new AdminExchange(ctx), "n2", "127.0.0.1:" + port));
    return vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0)).requestHandler(r).listen()
        .await(20, TimeUnit.SECONDS).actualPort();
  }

  private record Answer(int status, String servedBy, JsonObject json) {}

  private Answer callOnce(HttpClient c, int frontPort) throws Exception {
    HttpClientResponse[] resp = new HttpClientResponse[1];
    Buffer body = c.request(new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1").setPort(frontPort)
            .setURI("/api/v1/changefeeds/cf/pause").putHeader("Authorization", "Bearer caller-token"))
        .compose(req -> req.send(Buffer.buffer("{}")))
        .compose(r -> {
          resp[0] = r;
          return r.body();
        }).await(30, TimeUnit.SECONDS);
    return new Answer(resp[0].statusCode(), resp[0].getHeader(AdminForwarder.SERVED_BY), new JsonObject(body));
  }

  @Test
  void aRequestIsForwardedOverTlsTrustingTheNodesCaWithTheCallersAuthorization() throws Exception {
    int member = member(false);
    Answer a = callOnce(vertx.createHttpClient(), front(ClientSecurity.tls(caFile).withToken("node-own-token"), member));
    assertThat(a.status()).as(a.json().encode()).isEqualTo(200);
    assertThat(a.servedBy()).isEqualTo("n2");
    assertThat(a.json().getString("authorization")).as("the caller's, not the node's token").isEqualTo("Bearer caller-token");
    assertThat(a.json().getString("forwarded_by")).isEqualTo("n1");
    assertThat(a.json().getString("body")).isEqualTo("{}");
  }

  @Test
  void aMemberRequiringClientCertificatesGetsTheNodesCertificate() throws Exception {
    int member = member(true);
    Answer a = callOnce(vertx.createHttpClient(), front(ClientSecurity.tls(caFile)
        .withClientCertificate(node.cert(), node.key()), member));
    assertThat(a.status()).as(a.json().encode()).isEqualTo(200);
    assertThat(a.json().getBoolean("client_certificate")).isTrue();

    Answer without = callOnce(vertx.createHttpClient(), front(ClientSecurity.tls(caFile), member));
    assertThat(without.status()).isEqualTo(503);
    assertThat(without.json().getString("code")).isEqualTo("NODE_UNREACHABLE");
  }

  @Test
  void plaintextOrAnUntrustedCertificateIsA503NamingTheNodeAndWhy() throws Exception {
    int member = member(false);
    Answer plain = callOnce(vertx.createHttpClient(), front(ClientSecurity.none(), member));
    assertThat(plain.status()).isEqualTo(503);
    assertThat(plain.json().getString("code")).isEqualTo("NODE_UNREACHABLE");
    assertThat(plain.json().getString("message")).contains("node n2", "127.0.0.1:" + member);

    Path otherCa = TestPki.ca("Other CA").write(dir, "other");
    Answer untrusted = callOnce(vertx.createHttpClient(), front(ClientSecurity.tls(otherCa), member));
    assertThat(untrusted.status()).isEqualTo(503);
    assertThat(untrusted.json().getString("message")).contains("node n2");
  }
}
