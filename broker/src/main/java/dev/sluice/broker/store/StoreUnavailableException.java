package dev.sluice.broker.store;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.TransientException;
import java.nio.file.Path;

/**
 * RocksDB failed an operation (I/O error, disk full, busy); retry with backoff. Wraps the
 * {@code RocksDBException} once, at the store boundary.
 *
 * <pre>{@code
 * catch (StoreUnavailableException e) { backoff.retry(); }   // code() == STORE_UNAVAILABLE
 * }</pre>
 */
public final class StoreUnavailableException extends TransientException {

  private final Path dataDir;
  private final String operation;

  public StoreUnavailableException(Path dataDir, String operation, Throwable cause) {
    super(ErrorCode.STORE_UNAVAILABLE, "event store at " + dataDir + " failed to " + operation + ": "
        + (cause == null ? "unknown cause" : cause.getMessage())
        + "; check disk space and permissions there, the operation can be retried", cause);
    this.dataDir = dataDir;
    this.operation = operation;
  }

  public Path dataDir() {
    return dataDir;
  }

  /** What the store was doing, e.g. {@code "write a batch of 120 rows"}. */
  public String operation() {
    return operation;
  }
}
