package dev.sluice.broker.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * The highest fencing token this node has seen, kept in {@code <dataDir>/cluster/token-floor} (written
 * to a temporary file, synced, then renamed over the old one). A new coordinator raises the CP token
 * counter above every member's floor, so tokens keep growing across a restart of the whole cluster.
 * Thread-safe.
 *
 * <pre>{@code
 * TokenFloor floor = TokenFloor.open(dataDir.resolve("cluster"));
 * floor.observe(assignment.token());   // before the owner writes with it
 * }</pre>
 */
public final class TokenFloor {

  private final Path file;
  private long value;

  private TokenFloor(Path file, long value) {
    this.file = file;
    this.value = value;
  }

  /** Opens (or creates) the floor under {@code dir}. */
  public static TokenFloor open(Path dir) {
    try {
      Files.createDirectories(dir);
      Path f = dir.resolve("token-floor");
      long v = Files.exists(f) ? Long.parseLong(Files.readString(f, StandardCharsets.UTF_8).trim()) : 0;
      return new TokenFloor(f, v);
    } catch (IOException | NumberFormatException e) {
      throw new IllegalStateException("cannot read the fencing token floor under " + dir + ": " + e.getMessage()
          + "; if the file is damaged, delete it (a restarted cluster then needs every other member's floor)", e);
    }
  }

  public synchronized long value() {
    return value;
  }

  /** Records {@code token} durably when it is above the floor. */
  public synchronized void observe(long token) {
    if (token <= value) {
      return;
    }
    Path tmp = file.resolveSibling("token-floor.tmp");
    try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      ch.write(ByteBuffer.wrap(Long.toString(token).getBytes(StandardCharsets.UTF_8)));
      ch.force(true);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot persist the fencing token floor " + token + " in " + tmp, e);
    }
    try {
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot persist the fencing token floor " + token + " in " + file, e);
    }
    value = token;
  }
}
