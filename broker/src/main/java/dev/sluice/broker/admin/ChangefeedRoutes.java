package dev.sluice.broker.admin;

import dev.sluice.broker.changefeed.ChangefeedSpec;
import dev.sluice.broker.changefeed.SnapshotAction;
import dev.sluice.broker.changefeed.ChangefeedSupervisor;
import dev.sluice.broker.changefeed.DeleteOptions;
import dev.sluice.broker.changefeed.DeletionTicket;
import dev.sluice.broker.changefeed.InvalidChangefeedException;
import dev.sluice.broker.changefeed.SinkCheck;
import dev.sluice.broker.changefeed.StrictJson;
import io.vertx.core.Future;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code /api/v1/changefeeds}: create, list, get, pause, resume, update (PATCH merges, PUT replaces),
 * delete with {@code keep_meta}, and the status of a deletion. Request bodies and query parameters are
 * strict: unknown ones are a 400 naming them. Create and update check a new sink first (400
 * {@code SINK_CHECK_FAILED} when it does not work) unless {@code ?validate=false}; a file another
 * changefeed writes is a 409 {@code SINK_IN_USE}.
 *
 * <p>DELETE waits up to the configured bound for the cleanup: 204 when it completed, 202 with
 * {@code Location: /api/v1/changefeeds/{id}/deletion/{generation}} when it still runs, 503 (transient)
 * or 500 with the error and the same Location when it failed (the changefeed stays REMOVING and a
 * DELETE with the same {@code keep_meta} retries it). {@code purge=true} also discards the checkpoint a
 * keep_meta delete kept (its sink rows included); it cannot be combined with {@code keep_meta=true}.
 */
final class ChangefeedRoutes {

  private static final String BASE = "/api/v1/changefeeds";
  private static final Set<String> CREATE_KEYS = with(ChangefeedSpec.KEYS, "id");
  private static final Set<String> UPDATE_KEYS = ChangefeedSpec.KEYS;

  private final ChangefeedSupervisor changefeeds;
  private final ChangefeedViews views;
  private final AdminResources resources;
  private final AdminForwarder forwarder;

  ChangefeedRoutes(AdminResources resources, ChangefeedViews views, AdminForwarder forwarder) {
    this.changefeeds = resources.changefeeds();
    this.views = views;
    this.resources = resources;
    this.forwarder = forwarder;
  }

  void register(AdminRoutes routes) {
    routes.add(HttpMethod.POST, BASE, Set.of("validate"), ex -> atCoordinator(ex, this::create));
    routes.add(HttpMethod.GET, BASE, Set.of("state"), this::list);
    routes.add(HttpMethod.GET, BASE + "/{id}", Set.of(), ex -> atHost(ex, x -> render(x, 200,
        changefeeds.get(x.path("id")))));
    routes.add(HttpMethod.PATCH, BASE + "/{id}", Set.of("validate"), ex -> atHost(ex, x -> update(x, true)));
    routes.add(HttpMethod.PUT, BASE + "/{id}", Set.of("validate"), ex -> atHost(ex, x -> update(x, false)));
    routes.add(HttpMethod.DELETE, BASE + "/{id}", Set.of("keep_meta", "purge"), ex -> atHost(ex, this::delete));
    routes.add(HttpMethod.POST, BASE + "/{id}/pause", Set.of(), ex -> atHost(ex, x -> {
      x.checkNoBody();
      render(x, 200, changefeeds.pause(x.path("id")).thenCompose(changefeeds::snapshotOf));
    }));
    routes.add(HttpMethod.POST, BASE + "/{id}/resume", Set.of(), ex -> atHost(ex, x -> {
      x.checkNoBody();
      render(x, 200, changefeeds.resume(x.path("id")).thenCompose(changefeeds::snapshotOf));
    }));
    routes.add(HttpMethod.POST, BASE + "/{id}/snapshot", Set.of(), ex -> atHost(ex, x ->
        snapshot(x, SnapshotAction.START)));
    for (SnapshotAction action : List.of(SnapshotAction.PAUSE, SnapshotAction.RESUME, SnapshotAction.CANCEL)) {
      routes.add(HttpMethod.POST, BASE + "/{id}/snapshot/" + action.name().toLowerCase(java.util.Locale.ROOT), Set.of(),
          ex -> atHost(ex, x -> snapshot(x, action)));
    }
    routes.add(HttpMethod.GET, BASE + "/{id}/deletion/{generation}", Set.of(), ex -> {
      long generation = positive("generation", ex.path("generation"));
      ex.reply(200, changefeeds.deletion(ex.path("id"), generation).thenApply(s -> s.toJson()));
    });
  }

  /**
   * Answers here when this node hosts the changefeed (or nobody does: then the supervisor says why),
   * else forwards to the node that does; a changefeed between owners is tried again for a few seconds.
   */
  private void atHost(AdminExchange ex, io.vertx.core.Handler<AdminExchange> local) {
    ex.retryWhileMoving(() -> atHost(ex, local));
    String id = ex.path("id");
    if (!AdminForwarder.isForwarded(ex) && !changefeeds.hosts(id)) {
      var owner = resources.cluster().assignments().of(id).map(a -> a.nodeId())
          .filter(n -> !n.equals(me()))
          .flatMap(n -> resources.eventService().members().stream().filter(m -> m.nodeId().equals(n)
              && m.state() != dev.sluice.broker.cluster.MemberState.UNREACHABLE).findFirst());
      if (owner.isPresent()) {
        forwarder.forward(ex, owner.get().nodeId(), owner.get().adminAddress());
        return;
      }
    }
    local.handle(ex);   // a GET of a changefeed nobody hosts shows its replicated record
  }

  /** Creates run on the coordinator's node, which places the new changefeed. */
  private void atCoordinator(AdminExchange ex, io.vertx.core.Handler<AdminExchange> local) {
    ex.retryWhileMoving(() -> atCoordinator(ex, local));
    if (resources.cluster().coordinator().isLocal()) {
      local.handle(ex);
      return;
    }
    var status = resources.cluster().coordinator().status();
    String coordinator = resources.eventService().topology().getCoordinatorNodeId();
    if (coordinator.isEmpty() || AdminForwarder.isForwarded(ex)) {
      if (status.phase() == dev.sluice.broker.cluster.CoordinatorStatus.Phase.NO_QUORUM) {
        throw new dev.sluice.api.error.TransientException(dev.sluice.api.error.ErrorCode.NO_QUORUM,
            "the cluster cannot schedule changefeeds now: " + status.detail());
      }
      throw new dev.sluice.api.error.TransientException(dev.sluice.api.error.ErrorCode.CHANGEFEED_MOVING,
          "the cluster is electing its coordinator; retry shortly");
    }
    var member = resources.eventService().members().stream().filter(m -> m.nodeId().equals(coordinator)).findFirst();
    forwarder.forward(ex, coordinator, member.map(m -> m.adminAddress()).orElse(""));
  }

  private String me() {
    return resources.eventService().identity().nodeId();
  }

  private void create(AdminExchange ex) {
    SinkCheck check = validate(ex.query("validate"));
    StrictJson body = ex.body(CREATE_KEYS);
    String id = body.requiredString("id");
    ex.context().put(AdminRoutes.ID_KEY, id);
    ChangefeedSpec spec = ChangefeedSpec.fromJson(body, 0);
    Future<dev.sluice.broker.changefeed.ChangefeedSnapshot> created = Future.fromCompletionStage(
        changefeeds.create(id, spec, body.has("start_ts"), check).thenCompose(changefeeds::snapshotOf),
        ex.context().vertx().getOrCreateContext());
    ex.reply(201, created.compose(s -> ex.blocking(() -> views.render(s))).onSuccess(v ->
        ex.context().response().putHeader("Location", BASE + "/" + id)));
  }

  private void list(AdminExchange ex) {
    String state = ex.query("state");
    if (state != null && !Set.of("NORMAL", "PAUSED", "FAILED", "REMOVING").contains(state)) {
      throw InvalidChangefeedException.field("state", "must be NORMAL, PAUSED, FAILED or REMOVING, got \"" + state + "\"");
    }
    Future<List<dev.sluice.broker.changefeed.ChangefeedSnapshot>> all = Future.fromCompletionStage(changefeeds.list(),
        ex.context().vertx().getOrCreateContext());
    ex.reply(200, all.compose(list -> ex.blocking(() -> {
      JsonArray arr = new JsonArray();
      list.stream().filter(s -> state == null || s.record().state().name().equals(state))
          .forEach(s -> arr.add(views.render(s)));
      return new JsonObject().put("changefeeds", arr);
    })));
  }

  private void update(AdminExchange ex, boolean merge) {
    SinkCheck check = validate(ex.query("validate"));
    StrictJson body = ex.body(UPDATE_KEYS);
    ChangefeedSpec replacement = merge ? null : full(body);
    render(ex, 200, changefeeds.update(ex.path("id"), old -> merge ? old.patchedWith(body)
        : replacement.withStartTs(old.startTs()).keepingInitialLoadOf(old, body.has("initial_load")), check).thenCompose(changefeeds::snapshotOf));
  }

  /**
   * {@code POST .../snapshot[/pause|resume|cancel]} with an optional body {@code {"tables": ["schema.t", ...]}}
   * (absent or empty: every followed table): answers 200 with the tables acted on and the changefeed.
   */
  private void snapshot(AdminExchange ex, SnapshotAction action) {
    JsonObject raw = ex.bodyObject(false);
    StrictJson body = StrictJson.of(raw, "field", Set.of("tables"));
    List<String> tables = body.strings("tables", List.of());
    String id = ex.path("id");
    CompletableFuture<JsonObject> answer = changefeeds.snapshot(id, action, tables).thenCompose(acted ->
        changefeeds.get(id).thenApply(s -> new JsonObject().put("action", action.name().toLowerCase(
            java.util.Locale.ROOT)).put("tables", new JsonArray(acted)).put("snapshot", ChangefeedViews.snapshot(s))));
    ex.reply(200, Future.fromCompletionStage(answer, ex.context().vertx().getOrCreateContext()));
  }

  /** {@code validate}: absent = true (check a new sink before recording it); only true and false are accepted. */
  static SinkCheck validate(String value) {
    if (value == null || value.equals("true")) {
      return SinkCheck.CHECK;
    }
    if (value.equals("false")) {
      return SinkCheck.SKIP;
    }
    throw InvalidChangefeedException.field("validate", "must be true or false, got \"" + value + "\"");
  }

  private static ChangefeedSpec full(StrictJson body) {
    if (body.has("start_ts")) {
      throw InvalidChangefeedException.field("start_ts", "cannot be updated: an update resumes every table from the"
          + " changefeed's checkpoint");
    }
    return ChangefeedSpec.fromJson(body, 0);   // absent keys take their defaults: PUT replaces the whole definition
  }

  private void delete(AdminExchange ex) {
    ex.checkNoBody();
    DeleteOptions options = keepMeta(ex.query("keep_meta"));
    boolean purge = flag("purge", ex.query("purge"));
    if (purge && options.keepMeta()) {
      throw InvalidChangefeedException.field("purge", "cannot be combined with keep_meta=true: purge discards the"
          + " checkpoint keep_meta keeps");
    }
    String id = ex.path("id");
    long waitMs = changefeeds.config().deleteWait().toMillis();
    Future<DeletionTicket> ticket = Future.fromCompletionStage(purge ? changefeeds.purge(id)
        : changefeeds.delete(id, options), ex.context().vertx().getOrCreateContext());
    ticket.onFailure(ex::fail).onSuccess(t -> {
      CompletableFuture<Void> bounded = t.done().toCompletableFuture().orTimeout(waitMs, TimeUnit.MILLISECONDS);
      Future.fromCompletionStage(bounded, ex.context().vertx().getOrCreateContext()).onComplete(ar -> {
        if (ar.succeeded()) {
          ex.json(204, null);
        } else if (rootOf(ar.cause()) instanceof TimeoutException) {
          ex.context().response().putHeader("Location", t.statusPath());
          ex.reply(202, changefeeds.deletion(id, t.generation()).thenApply(s -> s.toJson()
              .put("status_url", t.statusPath())));
        } else {
          ex.fail(rootOf(ar.cause()));
        }
      });
    });
  }

  /** {@code keep_meta}: absent = false; only the exact words true and false are accepted. */
  static DeleteOptions keepMeta(String value) {
    return flag("keep_meta", value) ? DeleteOptions.KEEP_META : DeleteOptions.REMOVE_META;
  }

  private static boolean flag(String name, String value) {
    if (value == null || value.equals("false")) {
      return false;
    }
    if (value.equals("true")) {
      return true;
    }
    throw InvalidChangefeedException.field(name, "must be true or false, got \"" + value + "\"");
  }

  private void render(AdminExchange ex, int status,
      CompletableFuture<dev.sluice.broker.changefeed.ChangefeedSnapshot> snapshot) {
    ex.reply(status, Future.fromCompletionStage(snapshot, ex.context().vertx().getOrCreateContext())
        .compose(s -> ex.blocking(() -> views.render(s))));
  }

  private static long positive(String name, String value) {
    try {
      long v = Long.parseLong(value);
      if (v >= 1) {
        return v;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw InvalidChangefeedException.field(name, "must be a positive integer, got \"" + value + "\"");
  }

  private static Throwable rootOf(Throwable e) {
    return e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
  }

  private static Set<String> with(Set<String> base, String extra) {
    Set<String> s = new HashSet<>(base);
    s.add(extra);
    return Set.copyOf(s);
  }
}
