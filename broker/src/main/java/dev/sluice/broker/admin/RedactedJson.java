package dev.sluice.broker.admin;

import dev.sluice.api.secret.Redactor;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;

/**
 * An admin answer as it leaves the broker: a copy of the JSON with every string (keys included)
 * passed through the {@link Redactor}. Walking the tree rather than the encoded text keeps a masked
 * value inside its string whatever quotes or escapes the secret had.
 *
 * <pre>{@code
 * RedactedJson.of(new JsonObject().put("message", "jdbc:mysql://db/app?password=secret refused"));
 * // {"message": "jdbc:mysql://db/app?password=*** refused"}
 * }</pre>
 */
final class RedactedJson {

  private RedactedJson() {}

  /** A redacted copy of {@code body}: a JsonObject, a JsonArray, or anything Vert.x encodes. */
  static Object of(Object body) {
    if (body instanceof JsonObject || body instanceof JsonArray) {
      return copy(body);
    }
    return copy(Json.decodeValue(Json.encode(body)));
  }

  private static Object copy(Object value) {
    if (value instanceof JsonObject o) {
      JsonObject out = new JsonObject();
      for (Map.Entry<String, Object> e : o) {
        out.put(Redactor.redact(e.getKey()), copy(e.getValue()));
      }
      return out;
    }
    if (value instanceof JsonArray a) {
      JsonArray out = new JsonArray();
      for (Object v : a) {
        out.add(copy(v));
      }
      return out;
    }
    if (value instanceof CharSequence s) {
      return Redactor.redact(s.toString());
    }
    return value;
  }
}
