package dev.sluice.broker.store;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.FatalException;
import java.nio.file.Path;

/**
 * The WAL directory belongs to another event store (another broker on this host, another store in this
 * process, or one that used it before): a store opened on WAL files another one wrote would replay them as
 * its own or destroy them, so it is refused before RocksDB opens. Its code is {@code STORE_CORRUPT}, as for
 * {@link WalDirChangedException}: an operator must act (a directory of its own, or the other store gone).
 *
 * <pre>{@code
 * catch (WalDirInUseException e) { log(e.walDir() + " is taken"); }   // give each broker its own walDir
 * }</pre>
 */
public final class WalDirInUseException extends FatalException {

  private final Path walDir;

  /** @param owner the data directory of the store the WAL directory belongs to; null: one has it open now */
  WalDirInUseException(Path dataDir, Path walDir, String owner) {
    super(ErrorCode.STORE_CORRUPT, "event store at " + dataDir + " cannot use " + walDir + " as its WAL"
        + " directory (eventStore.walDir): " + (owner == null ? "another event store has it open"
        : "it holds the WAL of the event store at " + owner) + ". Give each broker a WAL directory of its own"
        + (owner == null ? ", or stop the other one first" : "; if this store was moved here from " + owner
        + " with its WAL, remove " + walDir.resolve(WalDirLock.FILE) + " after checking nothing else uses it"));
    this.walDir = walDir;
  }

  /** The WAL directory another store holds. */
  public Path walDir() {
    return walDir;
  }
}
