package dev.sluice.broker.admin;

import dev.sluice.broker.security.AccessRules;
import dev.sluice.broker.security.HttpAccess;
import dev.sluice.broker.security.Permission;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin API's route table: each route is declared once with its OpenAPI-style path and the
 * query parameters it accepts (anything else is a 400), counted in {@code sluice.admin.requests}
 * (tags route, method, status), and logged when it changes something.
 *
 * <pre>{@code
 * routes.add(HttpMethod.POST, "/api/v1/changefeeds/{id}/pause", Set.of(), ex -> ...);
 * routes.declared();   // [POST /api/v1/changefeeds/{id}/pause, ...] for the OpenAPI check
 * }</pre>
 */
final class AdminRoutes {

  static final String ERROR_KEY = "sluice.error";
  /** Set by handlers whose changefeed id comes in the body (create), for the request log. */
  static final String ID_KEY = "sluice.changefeedId";
  private static final Logger log = LoggerFactory.getLogger(AdminRoutes.class);

  /** A declared route: method, OpenAPI path and the query parameters it accepts. */
  record Declared(HttpMethod method, String path, Set<String> queryParams) {
    @Override
    public String toString() {
      return method.name() + " " + path;
    }
  }

  private final Router router;
  private final MeterRegistry registry;
  private final HttpAccess access;
  private final List<Declared> declared = new ArrayList<>();

  AdminRoutes(Router router, MeterRegistry registry, HttpAccess access) {
    this.router = router;
    this.registry = registry;
    this.access = access;
  }

  /**
   * Registers {@code handler} for {@code method path} ({@code {name}} path parameters), behind the
   * route's access rule.
   *
   * @throws IllegalStateException when the route has no rule in {@code AccessRules}
   */
  void add(HttpMethod method, String path, Set<String> queryParams, Handler<AdminExchange> handler) {
    Permission needed = AccessRules.route(method.name(), path);
    declared.add(new Declared(method, path, Set.copyOf(queryParams)));
    router.route(method, path.replaceAll("\\{([a-z_]+)}", ":$1")).handler(ctx -> {
      observe(ctx, method, path);
      AdminExchange ex = new AdminExchange(ctx);
      try {
        access.authorize(ctx, needed, method.name() + " " + path);
        ex.checkQuery(queryParams);
        handler.handle(ex);
      } catch (RuntimeException e) {
        ex.fail(e);
      }
    });
  }

  /** Counts and logs an answer that no route gave (404, 405). */
  void observeUnmatched(RoutingContext ctx) {
    observe(ctx, ctx.request().method(), "unmatched");
  }

  List<Declared> declared() {
    return List.copyOf(declared);
  }

  private void observe(RoutingContext ctx, HttpMethod method, String route) {
    ctx.addEndHandler(v -> {
      int status = ctx.response().getStatusCode();
      Counter.builder("sluice.admin.requests").tag("route", route).tag("method", method.name())
          .tag("status", Integer.toString(status)).description("admin API requests answered").register(registry)
          .increment();
      if (method != HttpMethod.GET && method != HttpMethod.HEAD) {
        String target = ctx.pathParam("id") != null ? ctx.pathParam("id") : ctx.<String>get(ID_KEY);
        log.atInfo().addKeyValue("method", method.name()).addKeyValue("path", ctx.request().path())
            .addKeyValue("changefeedId", target).addKeyValue("status", status)
            .addKeyValue("principal", HttpAccess.principal(ctx).name())
            .addKeyValue("error", (Object) ctx.<String>get(ERROR_KEY)).log("admin request");
        if (status != 401 && status != 403) {   // refusals are audited where they are decided
          access.guard().audit().record(HttpAccess.principal(ctx).name(), method.name() + " " + route, target,
              status < 400 ? "ok" : "failed", Integer.toString(status), HttpAccess.remote(ctx.request()),
              ctx.<String>get(ERROR_KEY));
        }
      }
    });
  }
}
