package dev.sluice.broker.config;

import java.util.Objects;

/**
 * A setting's value and where it came from.
 *
 * <pre>{@code
 * new SettingValue(8300, ConfigSource.DEFAULT, "default");
 * new SettingValue(9300, ConfigSource.FILE, "/etc/sluice.yaml line 4");
 * new SettingValue(9300, ConfigSource.ENV, "SLUICE_SERVE_GRPC_PORT");
 * }</pre>
 *
 * @param value  the typed value (null: unset)
 * @param source the kind of source
 * @param origin which one, for a person: the file and line, the variable, the flag
 */
public record SettingValue(Object value, ConfigSource source, String origin) {

  public SettingValue {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(origin, "origin");
  }

  static SettingValue ofDefault(Setting<?> s) {
    return new SettingValue(s.defaultValue(), ConfigSource.DEFAULT, "default");
  }

  /** {@code "SLUICE_SERVE_GRPC_PORT (env)"}, {@code "/etc/sluice.yaml line 4"}: for error messages. */
  public String describe() {
    return switch (source) {
      case FILE, RUNTIME -> origin;
      case ENV -> "environment variable " + origin;
      case FLAG -> "flag " + origin;
      case DEFAULT -> "the default";
      case API -> "the BrokerConfig given in code";
    };
  }
}
