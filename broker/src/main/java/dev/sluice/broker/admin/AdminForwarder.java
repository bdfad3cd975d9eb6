package dev.sluice.broker.admin;

import dev.sluice.dispatcher.BrokerAddress;
import dev.sluice.dispatcher.ClientSecurity;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Passes an admin request on to another member's admin API (the node hosting a changefeed, the
 * coordinator, the node to drain) and relays its answer: status, body, {@code Content-Type} and
 * {@code Location}, plus {@value #SERVED_BY} naming the node that answered. A forwarded request
 * carries {@value #FORWARDED_BY} and is always answered where it arrives, so nothing loops.
 *
 * <p>It dials the other members as the node's own clients do ({@link ClientSecurity}: the hosted
 * changefeeds' settings): TLS with host name verification when the node serves TLS, trusting the same
 * CA, presenting the node's certificate to members that require one. It never adds a token of its own:
 * the caller's {@code Authorization} is what the other member checks.
 *
 * <pre>{@code
 * AdminForwarder forwarder = new AdminForwarder(vertx, "node-1", ClientSecurity.tls(Path.of("ca.pem")));
 * forwarder.forward(ex, "node-2", "10.0.0.2:8311");
 * }</pre>
 */
final class AdminForwarder {

  static final String FORWARDED_BY = "X-Sluice-Forwarded-By";
  static final String SERVED_BY = "X-Sluice-Served-By";
  private static final Logger log = LoggerFactory.getLogger(AdminForwarder.class);
  private static final long TIMEOUT_MS = 30_000;

  private final HttpClient client;
  private final String nodeId;

  AdminForwarder(Vertx vertx, String nodeId, ClientSecurity peers) {
    this.client = vertx.createHttpClient(secured(peers, new HttpClientOptions().setConnectTimeout(5_000)));
    this.nodeId = nodeId;
  }

  /** {@code options} speaking TLS as {@code peers} says (the token is left out: the caller's is relayed). */
  static HttpClientOptions secured(ClientSecurity peers, HttpClientOptions options) {
    if (!peers.tls()) {
      return options;
    }
    options.setSsl(true).setVerifyHost(true);
    if (peers.caFile() != null) {
      options.setTrustOptions(new PemTrustOptions().addCertPath(peers.caFile().toString()));
    }
    if (peers.certFile() != null) {
      options.setKeyCertOptions(new PemKeyCertOptions().setCertPath(peers.certFile().toString())
          .setKeyPath(peers.keyFile().toString()));
    }
    return options;
  }

  /** Whether {@code ex} was forwarded here by another member. */
  static boolean isForwarded(AdminExchange ex) {
    return ex.context().request().getHeader(FORWARDED_BY) != null;
  }

  /** Sends {@code ex}'s request to {@code adminAddress} ({@code target}'s) and answers with its reply. */
  void forward(AdminExchange ex, String target, String adminAddress) {
    HttpServerRequest in = ex.context().request();
    BrokerAddress to;
    try {
      to = BrokerAddress.parse(adminAddress);
    } catch (IllegalArgumentException e) {
      unreachable(ex, target, adminAddress, "it announces no admin address");
      return;
    }
    RequestOptions out = new RequestOptions().setMethod(in.method()).setHost(to.host()).setPort(to.port())
        .setURI(in.uri()).setIdleTimeout(TIMEOUT_MS).putHeader(FORWARDED_BY, nodeId);
    for (String h : new String[] {"Content-Type", "Authorization"}) {   // the target checks the same principal
      String v = in.getHeader(h);
      if (v != null) {
        out.putHeader(h, v);
      }
    }
    Buffer body = ex.context().body() == null || ex.context().body().buffer() == null ? Buffer.buffer()
        : ex.context().body().buffer();
    client.request(out).compose(r -> r.send(body)).compose(r -> r.body().map(b -> new Reply(r, b)))
        .onSuccess(reply -> {
          var resp = ex.context().response();
          if (resp.ended()) {
            return;
          }
          resp.setStatusCode(reply.response.statusCode()).putHeader(SERVED_BY, target);
          for (String h : new String[] {"Content-Type", "Location"}) {
            String v = reply.response.getHeader(h);
            if (v != null) {
              resp.putHeader(h, v);
            }
          }
          resp.end(reply.body);
        })
        .onFailure(e -> unreachable(ex, target, adminAddress, e.getMessage()));
  }

  private void unreachable(AdminExchange ex, String target, String address, String why) {
    log.atWarn().addKeyValue("nodeId", nodeId).addKeyValue("target", target).addKeyValue("address", address)
        .log("could not forward an admin request: {}", why);
    ex.json(503, AdminErrors.error("NODE_UNREACHABLE", "node " + target + " (admin API " + address + ") did not answer: "
        + why + "; it may have left the cluster, retry shortly").put("node_id", target));
  }

  private record Reply(HttpClientResponse response, Buffer body) {}
}
