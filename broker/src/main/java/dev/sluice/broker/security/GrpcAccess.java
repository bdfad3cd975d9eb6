package dev.sluice.broker.security;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.grpc.server.GrpcServerRequest;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * The gRPC endpoint's hook into the {@link AccessGuard}: reads the {@code authorization} metadata and
 * the verified client certificate of a call and admits it under the RPC's rule ({@link AccessRules}).
 *
 * <pre>{@code
 * access.admit(req).onSuccess(principal -> serve(req, principal)).onFailure(e -> refuse(req, e));
 * }</pre>
 */
public final class GrpcAccess {

  private final AccessGuard guard;

  public GrpcAccess(AccessGuard guard) {
    this.guard = guard;
  }

  public AccessGuard guard() {
    return guard;
  }

  /** The principal of {@code req} if its RPC's permission is held; else a failed {@link AccessDeniedException}. */
  public Future<Principal> admit(Vertx vertx, GrpcServerRequest<?, ?> req) {
    Permission needed = AccessRules.rpc(req.fullMethodName());
    return Future.fromCompletionStage(guard.admit(credentials(req), needed, req.methodName()),
        vertx.getOrCreateContext());
  }

  /** What {@code req} carries to prove who it is. */
  public static Credentials credentials(GrpcServerRequest<?, ?> req) {
    HttpConnection conn = req.connection();
    List<X509Certificate> chain = List.of();
    if (conn != null && conn.isSsl()) {
      try {
        chain = Credentials.x509(conn.peerCertificates());
      } catch (SSLPeerUnverifiedException e) {
        chain = List.of();   // no client certificate: only a token can authenticate
      }
    }
    return new Credentials(req.headers().get("authorization"), chain, remote(conn));
  }

  static String remote(HttpConnection conn) {
    return conn == null || conn.remoteAddress() == null ? "" : conn.remoteAddress().toString();
  }
}
