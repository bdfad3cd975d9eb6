package dev.sluice.broker.config;

import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;

/**
 * Reads a record component by its accessor path from a typed configuration
 * ({@code serve.eventService.limits.scanConcurrency} of a {@code BrokerConfig}), so each key's
 * effective value is read from the configuration in force and never kept twice.
 */
final class ConfigPaths {

  private ConfigPaths() {}

  /** The value at {@code path} under {@code root}; null when a record on the way is null. */
  static Object read(Object root, String path) {
    Object cur = root;
    for (String segment : path.split("\\.")) {
      if (cur == null) {
        return null;
      }
      cur = component(cur, segment);
    }
    return cur;
  }

  private static Object component(Object record, String name) {
    if (!record.getClass().isRecord()) {
      throw new IllegalArgumentException(record.getClass().getSimpleName() + " is not a record; no component " + name);
    }
    for (RecordComponent c : record.getClass().getRecordComponents()) {
      if (c.getName().equals(name)) {
        try {
          Method m = c.getAccessor();
          return m.invoke(record);
        } catch (ReflectiveOperationException e) {
          throw new IllegalStateException("cannot read " + name + " of " + record.getClass().getSimpleName(), e);
        }
      }
    }
    throw new IllegalArgumentException(record.getClass().getSimpleName() + " has no component " + name);
  }
}
