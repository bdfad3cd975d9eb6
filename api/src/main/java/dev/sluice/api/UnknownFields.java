package dev.sluice.api;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Finds fields a message carries that this version of the protocol does not know. The protocol
 * treats an unknown field as an error, never as something to ignore: a newer peer must not have a
 * request silently mean less than it asked for.
 *
 * <pre>{@code
 * UnknownFields.find(request).ifPresent(path ->
 *     reject(ErrorCode.UNKNOWN_FIELD, "unknown field " + path));
 * }</pre>
 */
public final class UnknownFields {

  /** Per message type, its message-typed fields: the only ones that can hide nested unknown fields. */
  private static final Map<Descriptor, List<FieldDescriptor>> MESSAGE_FIELDS = new ConcurrentHashMap<>();

  private UnknownFields() {}

  /**
   * The path of the first unknown field, such as {@code "dispatcher_request.span#7"}, searching nested
   * messages; empty when every field is known.
   */
  public static Optional<String> find(Message message) {
    // every message the broker receives is checked: the common all-known case allocates no paths or field maps
    return hasUnknown(message) ? find(message, "") : Optional.empty();
  }

  private static boolean hasUnknown(Message message) {
    if (!message.getUnknownFields().asMap().isEmpty()) {
      return true;
    }
    for (FieldDescriptor f : messageFields(message.getDescriptorForType())) {
      if (f.isRepeated()) {
        for (int i = 0, n = message.getRepeatedFieldCount(f); i < n; i++) {
          if (hasUnknown((Message) message.getRepeatedField(f, i))) {
            return true;
          }
        }
      } else if (message.hasField(f) && hasUnknown((Message) message.getField(f))) {
        return true;
      }
    }
    return false;
  }

  private static List<FieldDescriptor> messageFields(Descriptor type) {
    return MESSAGE_FIELDS.computeIfAbsent(type, t -> t.getFields().stream()
        .filter(f -> f.getJavaType() == FieldDescriptor.JavaType.MESSAGE).toList());
  }

  private static Optional<String> find(Message message, String prefix) {
    Map<Integer, ?> unknown = message.getUnknownFields().asMap();
    if (!unknown.isEmpty()) {
      String name = prefix.isEmpty() ? message.getDescriptorForType().getName() : prefix;
      return Optional.of(name + "#" + unknown.keySet().iterator().next());
    }
    for (Map.Entry<FieldDescriptor, Object> e : message.getAllFields().entrySet()) {
      FieldDescriptor f = e.getKey();
      if (f.getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
        continue;
      }
      String path = prefix.isEmpty() ? f.getName() : prefix + "." + f.getName();
      if (f.isRepeated()) {
        List<?> items = (List<?>) e.getValue();
        for (int i = 0; i < items.size(); i++) {
          Optional<String> found = find((Message) items.get(i), path + "[" + i + "]");
          if (found.isPresent()) {
            return found;
          }
        }
      } else {
        Optional<String> found = find((Message) e.getValue(), path);
        if (found.isPresent()) {
          return found;
        }
      }
    }
    return Optional.empty();
  }
}
