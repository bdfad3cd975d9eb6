package dev.sluice.broker.config;

import dev.sluice.broker.BrokerConfig;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Every key's value and its source after the layers were combined (default, file, env, flag): what
 * {@link BrokerConfigFactory} builds the typed configuration from, and what {@code GET /api/v1/config}
 * names as each value's source.
 *
 * <pre>{@code
 * ResolvedSettings s = ConfigResolver.resolve(inputs);
 * int port = s.get(ConfigKeys.SERVE_GRPC_PORT);
 * s.value(ConfigKeys.SERVE_GRPC_PORT).source();   // FILE
 * }</pre>
 */
public final class ResolvedSettings {

  private final Map<Setting<?>, SettingValue> values;

  ResolvedSettings(Map<Setting<?>, SettingValue> values) {
    Map<Setting<?>, SettingValue> all = new LinkedHashMap<>();
    for (Setting<?> s : ConfigKeys.all()) {
      all.put(s, values.getOrDefault(s, SettingValue.ofDefault(s)));
    }
    this.values = Collections.unmodifiableMap(all);
  }

  /** Every key at its default. */
  public static ResolvedSettings defaults() {
    return new ResolvedSettings(Map.of());
  }

  /**
   * The settings of a broker built in code: each key the config sets reads its value from
   * {@code config}; a value other than the default has source {@link ConfigSource#API}.
   */
  public static ResolvedSettings of(BrokerConfig config) {
    Map<Setting<?>, SettingValue> m = new LinkedHashMap<>();
    for (Setting<?> s : ConfigKeys.all()) {
      if (s.path() == null) {
        continue;
      }
      Object v = ConfigPaths.read(config, s.path());
      boolean isDefault = Objects.equals(s.type().toJson(v), s.type().toJson(s.defaultValue()))
          || v != null && derived(s, config, v);
      m.put(s, isDefault ? new SettingValue(v, ConfigSource.DEFAULT, "default")
          : new SettingValue(v, ConfigSource.API, "BrokerConfig"));
    }
    return new ResolvedSettings(m);
  }

  // a derived default (the slot named after the node, the embedded upstream's user) is still the default
  private static boolean derived(Setting<?> s, BrokerConfig config, Object v) {
    if (s == ConfigKeys.CAPTURE_SLOT) {
      return v.equals(dev.sluice.broker.capture.CaptureConfig.defaultSlotName(config.nodeId()));
    }
    return s == ConfigKeys.UPSTREAM_USER && config.upstream().isEmbedded();
  }

  @SuppressWarnings("unchecked")
  public <T> T get(Setting<T> s) {
    return (T) values.get(s).value();
  }

  public SettingValue value(Setting<?> s) {
    return values.get(s);
  }

  /** Every key, in registry order. */
  public Map<Setting<?>, SettingValue> all() {
    return values;
  }
}
