package dev.sluice.broker.config;

import java.util.Objects;

/**
 * One key as a source gave it, before it is checked and parsed: the text is what the file, the
 * variable or the flag said.
 *
 * @param key    the dotted key as written (may be unknown or misspelt)
 * @param text   the value as text; null: the file gave an empty value (unset)
 * @param source where it came from
 * @param origin which file and line, variable or flag
 */
public record RawSetting(String key, String text, ConfigSource source, String origin) {

  public RawSetting {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(origin, "origin");
  }

  /** A value given by {@code flag} (origin {@code --flag}). */
  public static RawSetting flag(String key, String text, String flag) {
    return new RawSetting(key, text, ConfigSource.FLAG, flag);
  }

  SettingValue describeAs(Object value) {
    return new SettingValue(value, source, origin);
  }
}
