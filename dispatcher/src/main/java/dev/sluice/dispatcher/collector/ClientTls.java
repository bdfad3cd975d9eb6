package dev.sluice.dispatcher.collector;

import dev.sluice.dispatcher.ClientSecurity;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;

/**
 * Puts a {@link ClientSecurity}'s TLS settings on the HTTP/2 client a collector dials brokers with:
 * ALPN, the CA to trust (the JVM's trust store without one), host name verification, and the client
 * certificate for brokers that require mutual TLS. The files are read when the client is created
 * (again after a silent path replaced it).
 */
final class ClientTls {

  private ClientTls() {}

  static HttpClientOptions apply(ClientSecurity security, HttpClientOptions options) {
    if (!security.tls()) {
      return options;
    }
    options.setSsl(true).setUseAlpn(true).setVerifyHost(true);
    if (security.caFile() != null) {
      options.setTrustOptions(new PemTrustOptions().addCertPath(security.caFile().toString()));
    }
    if (security.certFile() != null) {
      options.setKeyCertOptions(new PemKeyCertOptions().setCertPath(security.certFile().toString())
          .setKeyPath(security.keyFile().toString()));
    }
    return options;
  }
}
