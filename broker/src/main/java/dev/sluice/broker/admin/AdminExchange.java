package dev.sluice.broker.admin;

import dev.sluice.api.secret.Redactor;
import dev.sluice.broker.changefeed.InvalidChangefeedException;
import dev.sluice.broker.changefeed.StrictJson;
import io.vertx.core.Future;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;

/**
 * One admin request and its single answer: strict reading of query parameters and the JSON body,
 * JSON replies (redacted on the way out, {@link RedactedJson}), and every failure mapped by
 * {@link AdminErrors}. Runs on the admin verticle's event loop; blocking reads go through
 * {@link #blocking}.
 *
 * <pre>{@code
 * routes.add(HttpMethod.GET, "/api/v1/changefeeds/{id}", Set.of(), ex ->
 *     ex.reply(200, supervisor.get(ex.path("id")).thenApply(views::render)));
 * }</pre>
 */
final class AdminExchange {

  /** How often a request for a changefeed between owners is tried again, 250 ms apart. */
  static final int MOVING_RETRIES = 24;

  private final RoutingContext ctx;
  private Runnable retry;
  private int retriesLeft = MOVING_RETRIES;

  AdminExchange(RoutingContext ctx) {
    this.ctx = ctx;
  }

  /**
   * Runs {@code again} (250 ms later, up to {@link #MOVING_RETRIES} times) instead of answering when the
   * request fails because its changefeed is between owners (or the coordinator moved): the answer comes
   * from wherever the changefeed has settled.
   */
  void retryWhileMoving(Runnable again) {
    this.retry = again;
  }

  RoutingContext context() {
    return ctx;
  }

  String path(String name) {
    return ctx.pathParam(name);
  }

  /**
   * The single value of query parameter {@code name}, or null when absent.
   *
   * @throws InvalidChangefeedException when it is given more than once
   */
  String query(String name) {
    List<String> all = ctx.queryParam(name);
    if (all.size() > 1) {
      throw InvalidChangefeedException.field(name, "must be given once, got " + all);
    }
    return all.isEmpty() ? null : all.get(0);
  }

  /** Every value of query parameter {@code name}, in order (a parameter that may repeat). */
  List<String> queryAll(String name) {
    return List.copyOf(ctx.queryParam(name));
  }

  /** Refuses query parameters other than {@code allowed} (never ignored: an old server must not drop a flag). */
  void checkQuery(Set<String> allowed) {
    Set<String> unknown = new java.util.TreeSet<>(ctx.queryParams().names());
    unknown.removeAll(allowed);
    if (!unknown.isEmpty()) {
      throw InvalidChangefeedException.unknown("query parameter" + (unknown.size() > 1 ? "s" : ""), unknown,
          new java.util.TreeSet<>(allowed));
    }
  }

  /** The body as a JSON object whose keys are all in {@code known}. */
  StrictJson body(Set<String> known) {
    return StrictJson.of(bodyObject(true), "field", known);
  }

  /** The raw JSON object body (required). */
  JsonObject bodyObject(boolean required) {
    String text = ctx.body() == null ? null : ctx.body().asString();
    if (text == null || text.isBlank()) {
      if (required) {
        throw InvalidChangefeedException.field("body", "is required: a JSON object");
      }
      return new JsonObject();
    }
    Object value;
    try {
      value = Json.decodeValue(text);
    } catch (DecodeException e) {
      throw InvalidChangefeedException.field("body", "is not valid JSON: " + e.getMessage());
    }
    if (!(value instanceof JsonObject o)) {
      throw InvalidChangefeedException.field("body", "must be a JSON object");
    }
    return o;
  }

  /** Refuses a body with any field (an empty body or {@code {}} is fine). */
  void checkNoBody() {
    StrictJson.of(bodyObject(false), "field", Set.of());
  }

  <T> Future<T> blocking(Callable<T> work) {
    return ctx.vertx().executeBlocking(work, false);
  }

  /** Answers {@code status} with the JSON of {@code result} once it completes, or the mapped error. */
  void reply(int status, CompletionStage<?> result) {
    reply(status, Future.fromCompletionStage(result, ctx.vertx().getOrCreateContext()));
  }

  void reply(int status, Future<?> result) {
    result.onComplete(ar -> {
      if (ar.succeeded()) {
        json(status, ar.result());
      } else {
        fail(ar.cause());
      }
    });
  }

  void json(int status, Object body) {
    if (ctx.response().ended()) {
      return;
    }
    ctx.response().setStatusCode(status);
    if (body == null) {
      ctx.response().end();
      return;
    }
    Object safe = RedactedJson.of(body);   // the one exit of every answer: no secret leaves in it
    String text = safe instanceof JsonObject o ? o.encodePrettily() : safe instanceof JsonArray a ? a.encodePrettily()
        : Json.encodePrettily(safe);
    ctx.response().putHeader("Content-Type", "application/json").end(text + "\n");
  }

  void fail(Throwable e) {
    Throwable root = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
    if (retry != null && retriesLeft > 0 && !ctx.response().ended() && root instanceof dev.sluice.api.error.TransientException t
        && t.code() == dev.sluice.api.error.ErrorCode.CHANGEFEED_MOVING) {
      retriesLeft--;
      Runnable again = retry;
      ctx.vertx().setTimer(250, id -> {
        try {
          again.run();
        } catch (RuntimeException x) {
          fail(x);
        }
      });
      return;
    }
    AdminErrors.Answer a = AdminErrors.answer(e);
    if (a.location() != null) {
      ctx.response().putHeader("Location", a.location());
    }
    ctx.put(AdminRoutes.ERROR_KEY, Redactor.redact(a.body().getString("message")));
    json(a.status(), a.body());
  }
}
