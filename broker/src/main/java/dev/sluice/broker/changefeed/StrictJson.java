package dev.sluice.broker.changefeed;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads a JSON object strictly: unknown keys and values of the wrong type are errors that name them
 * (an older server must never silently ignore a field a newer client relies on).
 *
 * <pre>{@code
 * StrictJson body = StrictJson.of(json, "field", Set.of("id", "sink_uri"));   // throws on any other key
 * String id = body.requiredString("id");
 * }</pre>
 */
public final class StrictJson {

  private final JsonObject json;
  private final String prefix;

  private StrictJson(JsonObject json, String prefix) {
    this.json = json;
    this.prefix = prefix;
  }

  /**
   * Wraps {@code json} after checking its keys against {@code known}.
   *
   * @param where what the keys are called in the error ("field", "option")
   * @throws InvalidChangefeedException with {@code UNKNOWN_FIELD} naming every unknown key
   */
  public static StrictJson of(JsonObject json, String where, Set<String> known) {
    return of(json, where, known, "");
  }

  static StrictJson of(JsonObject json, String where, Set<String> known, String prefix) {
    Set<String> unknown = new TreeSet<>();
    for (String key : json.fieldNames()) {
      if (!known.contains(key)) {
        unknown.add(prefix + key);
      }
    }
    if (!unknown.isEmpty()) {
      throw InvalidChangefeedException.unknown(where + (unknown.size() > 1 ? "s" : ""), unknown, new TreeSet<>(known));
    }
    return new StrictJson(json, prefix);
  }

  public boolean has(String key) {
    return json.containsKey(key) && json.getValue(key) != null;
  }

  public String requiredString(String key) {
    if (!has(key)) {
      throw InvalidChangefeedException.field(prefix + key, "is required");
    }
    return string(key, null);
  }

  public String string(String key, String fallback) {
    Object v = json.getValue(key);
    if (v == null) {
      return fallback;
    }
    if (!(v instanceof String s)) {
      throw InvalidChangefeedException.field(prefix + key, "must be a string, got " + describe(v));
    }
    return s;
  }

  public long longValue(String key, long fallback) {
    Object v = json.getValue(key);
    if (v == null) {
      return fallback;
    }
    if (!(v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte)) {
      throw InvalidChangefeedException.field(prefix + key, "must be an integer, got " + describe(v));
    }
    return ((Number) v).longValue();
  }

  public int intValue(String key, int fallback) {
    long v = longValue(key, fallback);
    if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
      throw InvalidChangefeedException.field(prefix + key, "must fit in 32 bits, got " + v);
    }
    return (int) v;
  }

  public boolean bool(String key, boolean fallback) {
    Object v = json.getValue(key);
    if (v == null) {
      return fallback;
    }
    if (!(v instanceof Boolean b)) {
      throw InvalidChangefeedException.field(prefix + key, "must be true or false, got " + describe(v));
    }
    return b;
  }

  /** A list of strings; {@code fallback} when absent. */
  public List<String> strings(String key, List<String> fallback) {
    Object v = json.getValue(key);
    if (v == null) {
      return fallback;
    }
    if (!(v instanceof JsonArray arr)) {
      throw InvalidChangefeedException.field(prefix + key, "must be an array of strings, got " + describe(v));
    }
    List<String> out = new ArrayList<>();
    for (Object o : arr) {
      if (!(o instanceof String s)) {
        throw InvalidChangefeedException.field(prefix + key, "must be an array of strings, got an element "
            + describe(o));
      }
      out.add(s);
    }
    return out;
  }

  /** A nested object, checked against {@code known}; null when absent. */
  public StrictJson object(String key, String where, Set<String> known) {
    Object v = json.getValue(key);
    if (v == null) {
      return null;
    }
    if (!(v instanceof JsonObject o)) {
      throw InvalidChangefeedException.field(prefix + key, "must be an object, got " + describe(v));
    }
    return of(o, where, known, prefix + key + ".");
  }

  /** The raw nested object (already checked by {@link #object}). */
  JsonObject rawObject(String key) {
    return json.getJsonObject(key);
  }

  private static String describe(Object v) {
    if (v instanceof String s) {
      return "the string \"" + s + "\"";
    }
    if (v instanceof JsonObject) {
      return "an object";
    }
    if (v instanceof JsonArray) {
      return "an array";
    }
    return v.getClass().getSimpleName().toLowerCase() + " " + v;
  }
}
