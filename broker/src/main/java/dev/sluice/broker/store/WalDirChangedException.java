package dev.sluice.broker.store;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.FatalException;
import java.nio.file.Path;
import java.util.List;

/**
 * The event store's write-ahead log holds writes in a directory other than the one the store is
 * opened with ({@code store.walDir} was set, changed or unset since they were written). RocksDB reads
 * the WAL only from its configured directory: it would open without those writes and drop them for
 * good, so the store refuses to open instead. Its code is {@code STORE_CORRUPT}: an operator must act
 * before the store can be used.
 *
 * <pre>{@code
 * catch (WalDirChangedException e) { log(e.foundIn() + " -> " + e.walDir()); }   // move the files, restart
 * }</pre>
 */
public final class WalDirChangedException extends FatalException {

  private final Path dataDir;
  private final Path walDir;
  private final Path foundIn;

  WalDirChangedException(Path dataDir, Path walDir, Path foundIn, List<String> files) {
    super(ErrorCode.STORE_CORRUPT, "event store at " + dataDir + " has unflushed writes in the WAL files "
        + String.join(", ", files) + " of " + foundIn + ", but it is opened with its WAL in " + walDir
        + " (eventStore.walDir " + (walDir.equals(dataDir) ? "unset" : "set") + "): RocksDB would open without"
        + " them and lose those writes. With the broker stopped, move the *.log files from " + foundIn + " to "
        + walDir + " and start it again, or set eventStore.walDir back to "
        + (foundIn.equals(dataDir) ? "unset" : foundIn.toString()));
    this.dataDir = dataDir;
    this.walDir = walDir;
    this.foundIn = foundIn;
  }

  public Path dataDir() {
    return dataDir;
  }

  /** The WAL directory the store was to be opened with ({@code dataDir} when none is set). */
  public Path walDir() {
    return walDir;
  }

  /** The directory holding the WAL files with the writes. */
  public Path foundIn() {
    return foundIn;
  }
}
