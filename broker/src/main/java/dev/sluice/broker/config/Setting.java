package dev.sluice.broker.config;

import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One configuration key, declared once with everything about it: its name in the file, its type and
 * default, where it lands in the typed configuration, its documentation, its environment variable and
 * flag, and whether it is a secret or can change at runtime. {@link ConfigKeys} holds them all;
 * docs/CONFIG.md is rendered from them.
 *
 * <pre>{@code
 * Setting<Integer> port = Setting.of("serve.grpcPort", SettingType.INT, 8300)
 *     .flag("--grpc-port").doc("gRPC port of the event service, 0 = any free port.");
 * port.env();   // SLUICE_SERVE_GRPC_PORT
 * }</pre>
 *
 * @param <T> the value's Java type
 * @param key          dotted name in the file ({@code serve.grpcPort}: {@code grpcPort} under {@code serve:})
 * @param type         how the value is written and read
 * @param defaultValue the default; null when there is none or it is derived (see {@code defaultText})
 * @param defaultText  how the docs state a derived or absent default; null: {@code defaultValue}'s text
 * @param path         accessor path from {@code BrokerConfig} to the record component it sets
 *                     ({@code serve.eventService.tickInterval}); null when it sets none directly
 * @param doc          meaning and unit, one or two sentences
 * @param flag         the {@code sluice server} flag that sets it, or null
 * @param secret       its value is never shown ({@code ***})
 * @param runtime      {@code PATCH /api/v1/config} can change it
 */
public record Setting<T>(String key, SettingType<T> type, T defaultValue, String defaultText, String path, String doc,
    String flag, boolean secret, boolean runtime) {

  private static final Pattern KEY = Pattern.compile("[a-z][A-Za-z0-9]*(\\.[a-z][A-Za-z0-9]*)*");

  public Setting {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(type, "type");
    if (!KEY.matcher(key).matches()) {
      throw new IllegalArgumentException("setting key must be dotted camelCase, got '" + key + "'");
    }
  }

  /** A key whose component path is the key itself, with no doc, flag or special role yet. */
  public static <T> Setting<T> of(String key, SettingType<T> type, T defaultValue) {
    return new Setting<>(key, type, defaultValue, null, key, "", null, false, false);
  }

  public Setting<T> path(String componentPath) {
    return new Setting<>(key, type, defaultValue, defaultText, componentPath, doc, flag, secret, runtime);
  }

  public Setting<T> doc(String text) {
    return new Setting<>(key, type, defaultValue, defaultText, path, text, flag, secret, runtime);
  }

  public Setting<T> flag(String name) {
    return new Setting<>(key, type, defaultValue, defaultText, path, doc, name, secret, runtime);
  }

  /** The default as the docs state it, when it is derived from other settings or absent. */
  public Setting<T> defaultText(String text) {
    return new Setting<>(key, type, defaultValue, text, path, doc, flag, secret, runtime);
  }

  /** Its value is never shown. */
  public Setting<T> masked() {
    return new Setting<>(key, type, defaultValue, defaultText, path, doc, flag, true, runtime);
  }

  public Setting<T> runtimeTunable() {
    return new Setting<>(key, type, defaultValue, defaultText, path, doc, flag, secret, true);
  }

  /**
   * The environment variable that sets it: {@code SLUICE_}, then the key with each dot and each
   * lower-to-upper case step turned into {@code _}, upper-cased ({@code eventService.gcRetention}:
   * {@code SLUICE_EVENT_SERVICE_GC_RETENTION}).
   */
  public String env() {
    return envName(key);
  }

  static String envName(String key) {
    StringBuilder b = new StringBuilder("SLUICE_");
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (c == '.') {
        b.append('_');
      } else if (Character.isUpperCase(c) && i > 0 && key.charAt(i - 1) != '.') {
        b.append('_').append(c);
      } else {
        b.append(Character.toUpperCase(c));
      }
    }
    return b.toString().toUpperCase(Locale.ROOT);
  }

  /** The last segment of the key ({@code grpcPort}). */
  public String leaf() {
    return key.substring(key.lastIndexOf('.') + 1);
  }

  /** The record component it sets ({@code grpcPort} of {@code serve.grpcPort}), or null. */
  public String component() {
    return path == null ? null : path.substring(path.lastIndexOf('.') + 1);
  }

  /** The default as the docs show it. */
  public String defaultShown() {
    if (defaultText != null) {
      return defaultText;
    }
    return defaultValue == null ? "(none)" : type.text(defaultValue);
  }

  @Override
  public String toString() {
    return key;
  }
}
