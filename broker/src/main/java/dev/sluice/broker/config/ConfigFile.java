package dev.sluice.broker.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the YAML configuration file of {@code sluice server --config} into one {@link RawSetting} per
 * key, each with its line. Sections nest ({@code serve:} then {@code grpcPort: 9300}) or keys are
 * written dotted ({@code serve.grpcPort: 9300}); an empty value leaves the key unset. A key given
 * twice, a list, or a file that is not a mapping is an error naming the line. Whether the keys exist
 * is checked later ({@link ConfigResolver}), with the line.
 *
 * <pre>{@code
 * # sluice.yaml
 * serve:
 *   grpcPort: 9300
 * eventService:
 *   gcRetention: 2h
 *
 * List<RawSetting> keys = ConfigFile.read(Path.of("sluice.yaml"));
 * // [serve.grpcPort = 9300 (sluice.yaml line 3), eventService.gcRetention = 2h (sluice.yaml line 5)]
 * }</pre>
 */
public final class ConfigFile {

  private static final YAMLFactory YAML = YAMLFactory.builder().build();

  private ConfigFile() {}

  /**
   * The keys of {@code file}.
   *
   * @throws InvalidConfigException when it cannot be read or is not a YAML mapping of keys
   */
  public static List<RawSetting> read(Path file) {
    String name = file.toString();
    if (Files.isDirectory(file)) {
      throw single(name, "is a directory; --config names a YAML file");
    }
    if (!Files.exists(file)) {
      throw single(name, "does not exist");
    }
    List<RawSetting> out = new ArrayList<>();
    List<ConfigProblem> problems = new ArrayList<>();
    try (JsonParser p = YAML.createParser(file.toFile())) {
      p.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
      JsonToken first = p.nextToken();
      if (first == null || first == JsonToken.VALUE_NULL) {
        return List.of(); // an empty file: every key from elsewhere
      }
      if (first != JsonToken.START_OBJECT) {
        throw single(name + " line " + line(p), "must be a mapping of keys (key: value), got " + describe(first));
      }
      readObject(p, "", name, out, problems);
    } catch (JsonProcessingException e) {
      String where = e.getLocation() == null ? name : name + " line " + e.getLocation().getLineNr();
      throw single(where, "is not valid YAML: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw single(name, "cannot be read: " + e);
    }
    if (!problems.isEmpty()) {
      throw new InvalidConfigException(problems);
    }
    return out;
  }

  private static void readObject(JsonParser p, String prefix, String file, List<RawSetting> out,
      List<ConfigProblem> problems) throws IOException {
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String key = prefix.isEmpty() ? p.currentName() : prefix + "." + p.currentName();
      int line = line(p);
      JsonToken value = p.nextToken();
      String origin = file + " line " + line;
      if (value == JsonToken.START_OBJECT) {
        if (ConfigKeys.find(key).isPresent()) {
          problems.add(new ConfigProblem(key + " (" + origin + ")", "takes a value, not a section"));
          p.skipChildren();
        } else {
          readObject(p, key, file, out, problems);
        }
      } else if (value == JsonToken.START_ARRAY) {
        problems.add(new ConfigProblem(key + " (" + origin + ")", "takes one value, not a list"));
        p.skipChildren();
      } else {
        // "key:" with nothing after it reads as null or as an empty string: either way the key is not set here
        String text = value == JsonToken.VALUE_NULL ? null : p.getText();
        out.add(new RawSetting(key, text == null || text.isEmpty() ? null : text, ConfigSource.FILE, origin));
      }
    }
  }

  private static int line(JsonParser p) {
    return p.currentTokenLocation().getLineNr();
  }

  private static String describe(JsonToken t) {
    return switch (t) {
      case START_ARRAY -> "a list";
      case VALUE_STRING -> "a string";
      default -> t.asString() == null ? t.name() : "'" + t.asString() + "'";
    };
  }

  private static InvalidConfigException single(String where, String message) {
    return new InvalidConfigException(List.of(new ConfigProblem("configuration file " + where, message)));
  }
}
