package dev.sluice.broker.security;

import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;

/**
 * What a node's servers (gRPC and admin HTTP) need of security: the guard every request passes, and
 * the TLS material with its reloader when TLS is on. One instance per node, shared by both servers.
 *
 * <pre>{@code
 * ServerSecurity s = new ServerSecurity(guard, reloader);        // reloader null = plaintext
 * HttpServerOptions o = s.secure(new HttpServerOptions().setPort(8300));
 * vertx.createHttpServer(o).requestHandler(h).listen().onSuccess(s::serving);
 * }</pre>
 *
 * @param guard authentication, authorization and audit
 * @param tls   the watched certificate, or null for plaintext
 */
public record ServerSecurity(AccessGuard guard, CertificateReloader tls) {

  /** No TLS, every caller an admin. */
  public static ServerSecurity open() {
    return new ServerSecurity(AccessGuard.open(), null);
  }

  /** {@code options} with TLS (and client certificates, with a client CA) when TLS is on; ALPN for HTTP/2. */
  public HttpServerOptions secure(HttpServerOptions options) {
    if (tls == null) {
      return options;
    }
    TlsMaterial m = tls.current();
    var ssl = m.serverOptions();
    options.setSsl(true).setUseAlpn(true).setKeyCertOptions(ssl.getKeyCertOptions());
    if (ssl.getTrustOptions() != null) {
      options.setTrustOptions(ssl.getTrustOptions()).setClientAuth(ssl.getClientAuth());
    }
    return options;
  }

  /** Registers a listening server for certificate reloads. */
  public void serving(HttpServer server) {
    if (tls != null) {
      tls.register(server);
    }
  }

  /** Stops reloading into a server that closes. */
  public void closing(HttpServer server) {
    if (tls != null) {
      tls.unregister(server);
    }
  }

  /** {@code https} or {@code http}: the scheme of the admin URL. */
  public String scheme() {
    return tls == null ? "http" : "https";
  }
}
