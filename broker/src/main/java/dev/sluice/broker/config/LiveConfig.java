package dev.sluice.broker.config;

import dev.sluice.broker.BrokerConfig;
import dev.sluice.broker.control.EventServiceLimits;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The configuration of a running broker: the static settings it started with (default, file,
 * environment, flags), and the runtime changes made since through {@code PATCH /api/v1/config} or kept
 * from an earlier run ({@link RuntimeOverrides}). Shows every key's effective value and source
 * ({@link #view}), and plans a change ({@link #plan}) that the admin API persists, applies to the
 * event service, then {@link #commit}s.
 *
 * <p>How runtime changes combine with the static sources: a runtime value wins over the static one it
 * was made against, across restarts, until that static value changes (the file is edited, the variable
 * or flag changes): then the new static value wins and the runtime value is dropped (logged). A PATCH
 * with {@code null}, or with the static value, removes the runtime value.
 *
 * <p>Concurrency: built before the admin API starts; then changed only on the admin verticle's event
 * loop. Readers on other threads see a consistent snapshot (one volatile field).
 *
 * <pre>{@code
 * LiveConfig live = LiveConfig.start(config, settings, config.configDir(), registry);
 * LiveConfig.Plan p = live.plan(new JsonObject().put("scanConcurrency", 4));
 * p.overrides().save(live.dir());
 * eventService.updateLimits(p.limits());
 * live.commit(p);
 * }</pre>
 */
public final class LiveConfig {

  private static final Logger log = LoggerFactory.getLogger(LiveConfig.class);
  static final String MASK = "***";

  private final BrokerConfig base;
  private final ResolvedSettings settings;
  private final Path dir;   // null: runtime changes are not kept
  private volatile RuntimeOverrides overrides;

  private LiveConfig(BrokerConfig base, ResolvedSettings settings, Path dir, RuntimeOverrides overrides) {
    this.base = base;
    this.settings = settings;
    this.dir = dir;
    this.overrides = overrides;
  }

  /** A plan: the overrides to persist and the limits they put in force. */
  public record Plan(RuntimeOverrides overrides, EventServiceLimits limits, Map<String, Object> changed) {}

  /**
   * Loads the runtime changes kept in {@code dir} and keeps those whose static value is unchanged.
   *
   * @param dir where runtime changes are kept, or null to keep none (a broker embedded in a test)
   */
  public static LiveConfig start(BrokerConfig config, ResolvedSettings settings, Path dir, MeterRegistry registry) {
    LiveConfig live = load(config, settings, dir, true);
    Gauge.builder("sluice.config.runtime.overrides", live, l -> l.overrides.entries().size())
        .description("settings whose runtime value (PATCH /api/v1/config) is in force").register(registry);
    return live;
  }

  /** As {@link #start} would load it, writing nothing ({@code sluice server --print-config}). */
  public static LiveConfig preview(BrokerConfig config, ResolvedSettings settings, Path dir) {
    return load(config, settings, dir, false);
  }

  private static LiveConfig load(BrokerConfig config, ResolvedSettings settings, Path dir, boolean rewrite) {
    RuntimeOverrides loaded = dir == null ? RuntimeOverrides.none() : RuntimeOverrides.load(dir);
    RuntimeOverrides kept = loaded;
    LiveConfig probe = new LiveConfig(config, settings, dir, RuntimeOverrides.none());
    for (Map.Entry<String, RuntimeOverrides.Entry> e : loaded.entries().entrySet()) {
      Optional<Setting<?>> s = ConfigKeys.find(e.getKey()).filter(Setting::runtime);
      String reason = null;
      if (s.isEmpty()) {
        reason = "it is not a runtime setting of this broker version";
      } else if (!Objects.equals(normalize(e.getValue().base()), normalize(probe.staticJson(s.get())))) {
        reason = "its static value changed from " + e.getValue().base() + " to " + probe.staticJson(s.get()) + " ("
            + settings.value(s.get()).describe() + "), which wins";
      } else {
        try {
          limitsWith(config.serve().eventService().limits(), Map.of(s.get(), e.getValue().value()));
        } catch (IllegalArgumentException ex) {
          reason = "it is no longer valid: " + ex.getMessage();
        }
      }
      if (reason != null) {
        kept = kept.without(e.getKey());
        log.atWarn().addKeyValue("key", e.getKey()).addKeyValue("runtimeValue", e.getValue().value())
            .addKeyValue("setAt", e.getValue().setAt()).log("runtime setting dropped: " + reason);
      } else {
        log.atInfo().addKeyValue("key", e.getKey()).addKeyValue("value", e.getValue().value())
            .addKeyValue("setAt", e.getValue().setAt()).log("runtime setting kept from an earlier run");
      }
    }
    if (rewrite && dir != null && kept.entries().size() != loaded.entries().size()) {
      try {
        kept.save(dir);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException("cannot rewrite the runtime settings in " + dir + ": " + e.getMessage(),
            e);
      }
    }
    return new LiveConfig(config, settings, dir, kept);
  }

  /** The configuration to start with: the static one with the kept runtime changes applied. */
  public BrokerConfig effective() {
    return withLimits(limits());
  }

  /** The limits in force by the static settings and the runtime changes. */
  public EventServiceLimits limits() {
    Map<Setting<?>, Object> m = new java.util.LinkedHashMap<>();
    overrides.entries().forEach((k, e) -> m.put(ConfigKeys.find(k).orElseThrow(), e.value()));
    return limitsWith(base.serve().eventService().limits(), m);
  }

  /** Where runtime changes are kept; null when they are not. */
  public Path dir() {
    return dir;
  }

  public RuntimeOverrides overrides() {
    return overrides;
  }

  /**
   * The change {@code patch} asks for: keys are runtime settings, by full key
   * ({@code eventService.limits.scanConcurrency}) or by the limit's own name ({@code scanConcurrency});
   * values are integers, or null to drop the runtime value.
   *
   * @throws IllegalArgumentException naming an unknown key, a key that is fixed at start, or a bad value;
   *     nothing changes
   */
  public Plan plan(JsonObject patch) {
    RuntimeOverrides next = overrides;
    Map<String, Object> changed = new java.util.LinkedHashMap<>();
    String now = Instant.now().toString();
    for (String name : patch.fieldNames()) {
      Setting<?> s = runtimeSetting(name);
      Object v = patch.getValue(name);
      Object staticValue = staticJson(s);
      if (v == null || Objects.equals(normalize(v), normalize(staticValue))) {
        next = next.without(s.key());
      } else if (!(v instanceof Integer || v instanceof Long)) {
        throw new IllegalArgumentException(name + " must be an integer, got " + v);
      } else {
        next = next.with(s.key(), new RuntimeOverrides.Entry(v, staticValue, now));
      }
      changed.put(s.key(), v);
    }
    Map<Setting<?>, Object> m = new java.util.LinkedHashMap<>();
    next.entries().forEach((k, e) -> m.put(ConfigKeys.find(k).orElseThrow(), e.value()));
    return new Plan(next, limitsWith(base.serve().eventService().limits(), m), changed);
  }

  /** Puts a persisted and applied plan in force here. */
  public void commit(Plan plan) {
    overrides = plan.overrides();
    log.atInfo().addKeyValue("changed", plan.changed().toString()).addKeyValue("limits", plan.limits().toJson().encode())
        .addKeyValue("kept", dir == null ? "no" : dir.resolve(RuntimeOverrides.FILE_NAME).toString())
        .log("runtime settings changed");
  }

  /**
   * Every key with its effective value and source:
   * {@code {"settings": {"serve.grpcPort": {"value": 8300, "source": "default"}, ...}, "limits": {...}}}.
   * Secrets show {@value #MASK}.
   *
   * @param inForce the limits the event service applies now
   */
  public JsonObject view(EventServiceLimits inForce) {
    BrokerConfig now = withLimits(inForce);
    RuntimeOverrides o = overrides;
    JsonObject all = new JsonObject();
    for (Setting<?> s : ConfigKeys.all()) {
      SettingValue sv = settings.value(s);
      Object value = s.path() == null ? s.type().toJson(sv.value()) : s.type().toJson(ConfigPaths.read(now, s.path()));
      JsonObject entry = new JsonObject().put("value", Redact.shown(s, value));
      RuntimeOverrides.Entry r = o.entries().get(s.key());
      if (r != null) {
        entry.put("source", ConfigSource.RUNTIME.label()).put("origin", "PATCH /api/v1/config at " + r.setAt())
            .put("static", new JsonObject().put("value", Redact.shown(s, staticJson(s))).put("source", sv.source().label()));
      } else {
        entry.put("source", sv.source().label());
        if (sv.source() != ConfigSource.DEFAULT) {
          entry.put("origin", sv.origin());
        }
      }
      if (s.runtime()) {
        entry.put("runtime", true);
      }
      all.put(s.key(), entry);
    }
    return new JsonObject().put("settings", all).put("limits", inForce.toJson());
  }

  private Setting<?> runtimeSetting(String name) {
    Optional<Setting<?>> s = ConfigKeys.find(name).or(() -> ConfigKeys.all().stream()
        .filter(k -> k.runtime() && k.leaf().equals(name)).findFirst());
    if (s.isEmpty()) {
      List<String> names = new ArrayList<>();
      ConfigKeys.all().stream().filter(Setting::runtime).forEach(k -> names.add(k.leaf()));
      throw new IllegalArgumentException("unknown runtime setting '" + name + "'" + KeySuggestion.closest(name, names)
          .map(k -> "; did you mean " + k + "?").orElse("") + "; runtime settings: " + names);
    }
    if (!s.get().runtime()) {
      throw new IllegalArgumentException(name + " is fixed at start; set it in the configuration file, as "
          + s.get().env() + (s.get().flag() == null ? "" : " or with " + s.get().flag()) + " and restart"
          + " (docs/CONFIG.md)");
    }
    return s.get();
  }

  private Object staticJson(Setting<?> s) {
    return s.path() == null ? s.type().toJson(settings.get(s)) : s.type().toJson(ConfigPaths.read(base, s.path()));
  }

  private BrokerConfig withLimits(EventServiceLimits l) {
    return base.withServe(base.serve().withEventService(base.serve().eventService().withLimits(l)));
  }

  private static EventServiceLimits limitsWith(EventServiceLimits from, Map<Setting<?>, Object> values) {
    JsonObject patch = new JsonObject();
    values.forEach((s, v) -> patch.put(s.leaf(), v));
    return from.patchedWith(patch);
  }

  // JSON numbers read back from the file may be Integer where a Long was written
  private static Object normalize(Object v) {
    return v instanceof Number n && !(v instanceof Double || v instanceof Float) ? (Object) n.longValue() : v;
  }
}
