package dev.sluice.broker.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One event store per WAL directory. RocksDB locks a store's data directory, not its {@code wal_dir}, and a
 * store opened on WAL files another one wrote (at once, or later) would replay them as its own or destroy
 * them; so the first store to use a {@code walDir} writes its data directory into a file there, holds an OS
 * lock on that file while open, and any other store (another broker on the host, another store in this JVM,
 * a later one pointed at the same directory) is refused before RocksDB opens.
 *
 * <pre>{@code
 * WalDirLock lock = WalDirLock.acquire(config.walDir(), config.dataDir());   // WalDirInUseException if taken
 * ...
 * lock.close();
 * }</pre>
 */
final class WalDirLock implements AutoCloseable {

  static final String FILE = "SLUICE_WAL_LOCK";

  private final FileChannel channel;
  private final FileLock lock;

  private WalDirLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  /** Locks {@code walDir} for the store in {@code dataDir}; the directory exists already. */
  static WalDirLock acquire(Path walDir, Path dataDir) {
    FileChannel channel = null;
    try {
      channel = FileChannel.open(walDir.resolve(FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null;   // held by another store of this JVM
      }
      if (lock == null) {
        channel.close();
        throw new WalDirInUseException(dataDir, walDir, null);
      }
      String me = dataDir.toAbsolutePath().normalize().toString();
      String owner = new String(Files.readAllBytes(walDir.resolve(FILE)), StandardCharsets.UTF_8).strip();
      if (owner.isEmpty()) {   // first use: the directory is this store's from now on
        channel.write(ByteBuffer.wrap((me + "\n").getBytes(StandardCharsets.UTF_8)));
        channel.force(true);
      } else if (!owner.equals(me)) {
        lock.release();
        channel.close();
        throw new WalDirInUseException(dataDir, walDir, owner);
      }
      return new WalDirLock(channel, lock);
    } catch (IOException e) {
      closeQuietly(channel);
      throw new StoreUnavailableException(dataDir, "lock its WAL directory " + walDir, e);
    }
  }

  @Override
  public void close() {
    try {
      lock.release();
    } catch (IOException ignored) {
      // the channel's close below releases it too
    }
    closeQuietly(channel);
  }

  private static void closeQuietly(FileChannel channel) {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException ignored) {
        // nothing held any more
      }
    }
  }
}
