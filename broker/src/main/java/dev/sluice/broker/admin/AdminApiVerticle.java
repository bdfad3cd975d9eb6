package dev.sluice.broker.admin;

import dev.sluice.broker.security.HttpAccess;
import dev.sluice.broker.security.ServerSecurity;
import dev.sluice.dispatcher.ClientSecurity;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The admin HTTP API of one broker node (Vert.x Web): {@code /api/v1/changefeeds}, {@code /dispatchers},
 * {@code /captures}, {@code /tables}, {@code /members}, {@code /config}, plus {@code /}, {@code /healthz},
 * {@code /readyz} and {@code /metrics}. Every route but {@code /healthz} and {@code /readyz} needs an
 * authenticated principal holding the route's permission ({@code AccessRules}; 401 / 403 otherwise),
 * and every change is written to the audit log. Every route is strict (unknown query parameters and body
 * fields are a 400 naming them) and answers JSON errors {@code {"code", "message"}}. The contract is
 * {@code api/src/main/resources/openapi/sluice-admin-v1.yaml}.
 *
 * <p>Concurrency: handlers run on this verticle's event loop; the supervisor decides on its own
 * thread and blocking reads (time marks, the scrape) run on workers.
 *
 * <pre>{@code
 * AdminApiVerticle admin = new AdminApiVerticle(resources, "127.0.0.1", 8301);
 * vertx.deployVerticle(admin).await();
 * System.out.println("admin on :" + admin.port());
 * }</pre>
 */
public final class AdminApiVerticle extends VerticleBase {

  /** Bodies larger than this are refused (413): a changefeed definition is a few hundred bytes. */
  static final long MAX_BODY_BYTES = 1 << 20;

  private final AdminResources resources;
  private final String host;
  private final int port;
  private final ServerSecurity security;
  private final ClientSecurity peers;
  private volatile int actualPort;
  private volatile List<AdminRoutes.Declared> declared = List.of();
  private HttpServer server;

  public AdminApiVerticle(AdminResources resources, String host, int port) {
    this(resources, host, port, ServerSecurity.open());
  }

  /** An admin API serving TLS and admitting requests as {@code security} says; it forwards in plaintext. */
  public AdminApiVerticle(AdminResources resources, String host, int port, ServerSecurity security) {
    this(resources, host, port, security, ClientSecurity.none());
  }

  /**
   * An admin API serving TLS and admitting requests as {@code security} says, forwarding requests to
   * other members with {@code peers}' TLS settings (the node's client settings; its token is not sent).
   */
  public AdminApiVerticle(AdminResources resources, String host, int port, ServerSecurity security,
      ClientSecurity peers) {
    this.resources = resources;
    this.host = host;
    this.port = port;
    this.security = security;
    this.peers = peers;
  }

  @Override
  public Future<?> start() {
    Router router = Router.router(vertx);
    HttpAccess access = new HttpAccess(security.guard());
    router.route().handler(access.authenticate());   // before the body is read: an unknown caller sends nothing more
    router.route().handler(BodyHandler.create(false).setBodyLimit(MAX_BODY_BYTES));
    AdminRoutes routes = new AdminRoutes(router, resources.registry(), access);
    new HealthRoutes(resources).register(routes);
    AdminForwarder forwarder = new AdminForwarder(vertx, resources.eventService().identity().nodeId(), peers);
    new ChangefeedRoutes(resources, new ChangefeedViews(resources.clock(), resources::servableTs,
        resources.cluster().assignments()), forwarder)
        .register(routes);
    new DispatcherRoutes(resources).register(routes);
    new CaptureRoutes(resources).register(routes);
    new TableRoutes(resources).register(routes);
    new MemberRoutes(resources, forwarder).register(routes);
    new ConfigRoutes(resources).register(routes);
    new SnapshotRoutes(resources).register(routes);
    declared = routes.declared();
    router.errorHandler(404, ctx -> unmatched(routes, ctx, 404, "NOT_FOUND", "no route " + ctx.request().method() + " "
        + ctx.request().path() + "; GET / lists the API"));
    router.errorHandler(405, ctx -> unmatched(routes, ctx, 405, "METHOD_NOT_ALLOWED", ctx.request().method()
        + " is not allowed on " + ctx.request().path()));
    router.errorHandler(413, ctx -> unmatched(routes, ctx, 413, "INVALID_REQUEST", "the body is larger than "
        + MAX_BODY_BYTES + " bytes"));
    router.errorHandler(500, ctx -> new AdminExchange(ctx).fail(ctx.failure() == null
        ? new IllegalStateException("internal error") : ctx.failure()));
    return vertx.createHttpServer(security.secure(new HttpServerOptions().setHost(host).setPort(port)))
        .requestHandler(router).listen()
        .onSuccess(s -> {
          server = s;
          actualPort = s.actualPort();
          security.serving(s);
        });
  }

  private static void unmatched(AdminRoutes routes, io.vertx.ext.web.RoutingContext ctx, int status, String code,
      String message) {
    routes.observeUnmatched(ctx);
    new AdminExchange(ctx).json(status, AdminErrors.error(code, message));
  }

  /** The port the API listens on (known once deployed). */
  public int port() {
    return actualPort;
  }

  /**
   * Every route served, {@code METHOD /path/{param}} to the query parameters it accepts: what the
   * OpenAPI document must describe.
   */
  public Map<String, Set<String>> routes() {
    Map<String, Set<String>> out = new TreeMap<>();
    declared.forEach(d -> out.put(d.toString(), new TreeSet<>(d.queryParams())));
    return out;
  }

  @Override
  public Future<?> stop() {
    if (server == null) {
      return Future.succeededFuture();
    }
    security.closing(server);
    return server.close();
  }
}
