package dev.sluice.broker.security;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * The admin API's hook into the {@link AccessGuard}. {@link #authenticate()} runs first on every request
 * (before the body is read): the public routes pass, everything else needs a credential, or gets 401
 * with {@code WWW-Authenticate: Bearer}. Each route then calls {@link #authorize} with its rule
 * ({@link AccessRules#route}), which throws {@link AccessDeniedException} (403) for a missing role.
 *
 * <pre>{@code
 * router.route().handler(access.authenticate());
 * router.route().handler(BodyHandler.create());
 * ... in a route: access.authorize(ctx, Permission.CHANGEFEED_WRITE, "POST /api/v1/changefeeds");
 * }</pre>
 */
public final class HttpAccess {

  /** Where the authenticated principal is kept on the routing context. */
  public static final String PRINCIPAL_KEY = "sluice.principal";

  private final AccessGuard guard;

  public HttpAccess(AccessGuard guard) {
    this.guard = guard;
  }

  public AccessGuard guard() {
    return guard;
  }

  /** A handler authenticating every non-public request, answering 401 itself. */
  public Handler<RoutingContext> authenticate() {
    return ctx -> {
      HttpServerRequest req = ctx.request();
      if (!guard.enabled() || isPublic(req.method().name(), req.path())) {
        ctx.next();
        return;
      }
      req.pause();
      Future.fromCompletionStage(guard.authenticator().authenticate(credentials(req)), ctx.vertx().getOrCreateContext())
          .onComplete(ar -> {
            req.resume();
            if (ar.succeeded()) {
              ctx.put(PRINCIPAL_KEY, ar.result());
              ctx.next();
              return;
            }
            Throwable e = ar.cause() instanceof java.util.concurrent.CompletionException && ar.cause().getCause() != null
                ? ar.cause().getCause() : ar.cause();
            AccessDeniedException denied = e instanceof AccessDeniedException a ? a
                : AccessDeniedException.unauthenticated("authentication failed: " + e.getClass().getSimpleName());
            guard.audit().refused(denied, req.method().name() + " " + req.path(), "", remote(req));
            ctx.response().setStatusCode(401).putHeader("WWW-Authenticate", "Bearer realm=\"sluice\"")
                .putHeader("Content-Type", "application/json")
                .end(new JsonObject().put("code", denied.code().name()).put("message", denied.getMessage())
                    .encodePrettily() + "\n");
          });
    };
  }

  /**
   * Checks the authenticated principal of {@code ctx} against {@code needed}.
   *
   * @throws AccessDeniedException (audited) when its roles do not grant it
   */
  public void authorize(RoutingContext ctx, Permission needed, String action) {
    if (needed == Permission.PUBLIC) {
      return;
    }
    Principal p = principal(ctx);
    try {
      AccessGuard.check(p, needed, action);
    } catch (AccessDeniedException e) {
      guard.audit().refused(e, action, ctx.pathParam("id"), remote(ctx.request()));
      throw e;
    }
  }

  /** Who made the request ({@link Principal#ANONYMOUS} on a public route or without authentication). */
  public static Principal principal(RoutingContext ctx) {
    Principal p = ctx.get(PRINCIPAL_KEY);
    return p == null ? Principal.ANONYMOUS : p;
  }

  static boolean isPublic(String method, String path) {
    return AccessRules.ROUTES.get(method + " " + path) == Permission.PUBLIC;
  }

  static Credentials credentials(HttpServerRequest req) {
    HttpConnection conn = req.connection();
    List<X509Certificate> chain = List.of();
    if (req.isSSL()) {
      try {
        chain = Credentials.x509(conn.peerCertificates());
      } catch (SSLPeerUnverifiedException e) {
        chain = List.of();
      }
    }
    return new Credentials(req.getHeader("Authorization"), chain, remote(req));
  }

  public static String remote(HttpServerRequest req) {
    return req.remoteAddress() == null ? "" : req.remoteAddress().toString();
  }
}
