package dev.sluice.broker.admin;

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
 * {@code /captures}, {@code /members}, {@code /config}, plus {@code /}, {@code /healthz},
 * {@code /readyz} and {@code /metrics}. Every route is strict (unknown query parameters and body
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
  private volatile int actualPort;
  private volatile List<AdminRoutes.Declared> declared = List.of();
  private HttpServer server;

  public AdminApiVerticle(AdminResources resources, String host, int port) {
    this.resources = resources;
    this.host = host;
    this.port = port;
  }

  @Override
  public Future<?> start() {
    Router router = Router.router(vertx);
    router.route().handler(BodyHandler.create(false).setBodyLimit(MAX_BODY_BYTES));
    AdminRoutes routes = new AdminRoutes(router, resources.registry());
    new HealthRoutes(resources).register(routes);
    new ChangefeedRoutes(resources.changefeeds(), new ChangefeedViews(resources.clock())).register(routes);
    new DispatcherRoutes(resources).register(routes);
    new CaptureRoutes(resources).register(routes);
    new MemberRoutes(resources).register(routes);
    new ConfigRoutes(resources).register(routes);
    declared = routes.declared();
    router.errorHandler(404, ctx -> unmatched(routes, ctx, 404, "NOT_FOUND", "no route " + ctx.request().method() + " "
        + ctx.request().path() + "; GET / lists the API"));
    router.errorHandler(405, ctx -> unmatched(routes, ctx, 405, "METHOD_NOT_ALLOWED", ctx.request().method()
        + " is not allowed on " + ctx.request().path()));
    router.errorHandler(413, ctx -> unmatched(routes, ctx, 413, "INVALID_REQUEST", "the body is larger than "
        + MAX_BODY_BYTES + " bytes"));
    router.errorHandler(500, ctx -> new AdminExchange(ctx).fail(ctx.failure() == null
        ? new IllegalStateException("internal error") : ctx.failure()));
    return vertx.createHttpServer(new HttpServerOptions().setHost(host).setPort(port)).requestHandler(router).listen()
        .onSuccess(s -> {
          server = s;
          actualPort = s.actualPort();
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
    return server == null ? Future.succeededFuture() : server.close();
  }
}
