package dev.sluice.broker.config;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The settings changed at runtime ({@code PATCH /api/v1/config}), kept in
 * {@code <dataDir>/config/runtime.json} so they survive a restart. Each entry remembers the static
 * value (file, environment, flag or default) it was made against: at start an entry is applied only
 * while that static value is unchanged, so an operator who edits the file later gets the file's value.
 * Written whole to a temporary file, fsynced, then renamed over the old one (and the directory fsynced):
 * a crash leaves the old file or the new one, never a torn one.
 *
 * <pre>{@code
 * RuntimeOverrides o = RuntimeOverrides.load(dir)
 *     .with("eventService.limits.scanConcurrency", new RuntimeOverrides.Entry(3, 8, "2026-01-01T00:00:00Z"));
 * o.save(dir);
 * }</pre>
 *
 * @param entries key to entry, in the order they were set
 */
public record RuntimeOverrides(Map<String, Entry> entries) {

  public static final String FILE_NAME = "runtime.json";
  static final int FORMAT = 1;

  /**
   * One runtime change.
   *
   * @param value the value in force (as JSON: a number, a boolean or a string)
   * @param base  the static value it overrode, as JSON
   * @param setAt when it was set (ISO-8601 instant)
   */
  public record Entry(Object value, Object base, String setAt) {

    public Entry {
      Objects.requireNonNull(value, "value");
      Objects.requireNonNull(setAt, "setAt");
    }

    JsonObject toJson() {
      return new JsonObject().put("value", value).put("base", base).put("setAt", setAt);
    }
  }

  public RuntimeOverrides {
    entries = Collections.unmodifiableMap(new LinkedHashMap<>(entries));
  }

  public static RuntimeOverrides none() {
    return new RuntimeOverrides(Map.of());
  }

  public RuntimeOverrides with(String key, Entry e) {
    Map<String, Entry> m = new LinkedHashMap<>(entries);
    m.remove(key);
    m.put(key, e);
    return new RuntimeOverrides(m);
  }

  public RuntimeOverrides without(String key) {
    Map<String, Entry> m = new LinkedHashMap<>(entries);
    m.remove(key);
    return new RuntimeOverrides(m);
  }

  /**
   * The overrides kept in {@code dir}; none when there is no file yet.
   *
   * @throws IllegalStateException when the file exists but cannot be read as this format, naming it
   */
  public static RuntimeOverrides load(Path dir) {
    Path file = dir.resolve(FILE_NAME);
    if (!Files.exists(file)) {
      return none();
    }
    try {
      JsonObject json = new JsonObject(Files.readString(file, StandardCharsets.UTF_8));
      if (json.getInteger("format", -1) != FORMAT) {
        throw new IllegalStateException("runtime settings " + file + " have format " + json.getValue("format")
            + ", this broker reads format " + FORMAT + "; move the file away to start without them");
      }
      Map<String, Entry> m = new LinkedHashMap<>();
      JsonObject all = json.getJsonObject("overrides", new JsonObject());
      for (String key : all.fieldNames()) {
        JsonObject e = all.getJsonObject(key);
        m.put(key, new Entry(e.getValue("value"), e.getValue("base"), e.getString("setAt", "")));
      }
      return new RuntimeOverrides(m);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the runtime settings " + file + ": " + e.getMessage(), e);
    } catch (DecodeException | ClassCastException | NullPointerException e) {
      throw new IllegalStateException("the runtime settings " + file + " are not valid (" + e.getMessage()
          + "); fix the file or move it away to start without the runtime changes it holds", e);
    }
  }

  /** Writes these overrides to {@code dir} durably (temp file, fsync, rename, fsync of the directory). */
  public void save(Path dir) throws IOException {
    Files.createDirectories(dir);
    JsonObject all = new JsonObject();
    entries.forEach((k, e) -> all.put(k, e.toJson()));
    byte[] bytes = (new JsonObject().put("format", FORMAT).put("overrides", all).encodePrettily() + "\n")
        .getBytes(StandardCharsets.UTF_8);
    Path tmp = dir.resolve(FILE_NAME + ".tmp");
    try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer buf = ByteBuffer.wrap(bytes);
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
      ch.force(true);
    }
    try {
      Files.move(tmp, dir.resolve(FILE_NAME), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(tmp, dir.resolve(FILE_NAME), StandardCopyOption.REPLACE_EXISTING);
    }
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    }
  }
}
