package dev.sluice.broker.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Combines the static sources into one value per key: the default, then the configuration file, then
 * the environment ({@code SLUICE_...}), then the flags; a later source wins. Every value is checked
 * against the registry ({@link ConfigKeys}) and parsed by its type; all problems are reported together,
 * each naming the key and where it was given.
 *
 * <p>An unknown key in the file or in {@code --set} is an error (with a did-you-mean). An unknown
 * {@code SLUICE_} variable is only a warning: the same environment serves the {@code sluice} client
 * commands and other tools. An empty variable counts as unset.
 *
 * <pre>{@code
 * ConfigResolver.Result r = ConfigResolver.resolve(ConfigFile.read(file), System.getenv(), flags);
 * r.settings().get(ConfigKeys.SERVE_GRPC_PORT);
 * }</pre>
 */
public final class ConfigResolver {

  /** Names the configuration file when {@code --config} is not given. */
  public static final String CONFIG_ENV = "SLUICE_CONFIG";
  static final String ENV_PREFIX = "SLUICE_";

  private ConfigResolver() {}

  /** The combined settings and the warnings to log. */
  public record Result(ResolvedSettings settings, List<String> warnings) {}

  /**
   * @throws InvalidConfigException naming every unknown key and every value that does not parse
   */
  public static Result resolve(List<RawSetting> file, Map<String, String> env, List<RawSetting> flags) {
    List<ConfigProblem> problems = new ArrayList<>();
    List<String> warnings = new ArrayList<>();
    Map<Setting<?>, SettingValue> values = new LinkedHashMap<>();
    for (RawSetting raw : file) {
      apply(raw, values, problems);
    }
    for (RawSetting raw : fromEnvironment(env, warnings)) {
      apply(raw, values, problems);
    }
    for (RawSetting raw : flags) {
      apply(raw, values, problems);
    }
    if (!problems.isEmpty()) {
      throw new InvalidConfigException(problems);
    }
    return new Result(new ResolvedSettings(values), List.copyOf(warnings));
  }

  /** The keys the environment sets, in variable-name order; unknown {@code SLUICE_} names become warnings. */
  static List<RawSetting> fromEnvironment(Map<String, String> env, List<String> warnings) {
    List<RawSetting> out = new ArrayList<>();
    List<String> known = ConfigKeys.all().stream().map(Setting::env).toList();
    for (Map.Entry<String, String> e : new TreeMap<>(env).entrySet()) {
      String name = e.getKey();
      if (!name.startsWith(ENV_PREFIX) || name.equals(CONFIG_ENV)) {
        continue;
      }
      Optional<Setting<?>> s = ConfigKeys.byEnv(name);
      if (s.isEmpty()) {
        warnings.add("environment variable " + name + " names no setting and is ignored"
            + KeySuggestion.closest(name, known).map(k -> "; did you mean " + k + "?").orElse(""));
        continue;
      }
      if (!e.getValue().isEmpty()) {
        out.add(new RawSetting(s.get().key(), e.getValue(), ConfigSource.ENV, name));
      }
    }
    return out;
  }

  private static void apply(RawSetting raw, Map<Setting<?>, SettingValue> values, List<ConfigProblem> problems) {
    Optional<Setting<?>> found = ConfigKeys.find(raw.key());
    if (found.isEmpty()) {
      if (raw.text() == null && isSection(raw.key())) {
        return; // "capture:" with nothing under it
      }
      problems.add(new ConfigProblem(raw.key() + " (" + describe(raw) + ")", "unknown key"
          + KeySuggestion.closest(raw.key(), ConfigKeys.all().stream().map(Setting::key).toList())
              .map(k -> "; did you mean " + k + "?").orElse("; docs/CONFIG.md lists every key")));
      return;
    }
    Setting<?> s = found.get();
    if (raw.text() == null) {
      return; // an empty value in the file: not set there
    }
    try {
      values.put(s, raw.describeAs(s.type().parse(raw.text())));
    } catch (IllegalArgumentException e) {
      String shown = s.secret() ? "***" : "'" + Redact.credentials(raw.text()) + "'";
      problems.add(new ConfigProblem(s.key() + " = " + shown + " (" + describe(raw) + ")",
          s.secret() ? "is not a valid " + s.type().name() : e.getMessage()));
    }
  }

  private static boolean isSection(String key) {
    return ConfigKeys.all().stream().anyMatch(s -> s.key().startsWith(key + "."));
  }

  private static String describe(RawSetting raw) {
    return raw.describeAs(null).describe();
  }
}
