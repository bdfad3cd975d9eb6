package dev.sluice.schema;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.TransientException;

/**
 * RocksDB refused an operation (I/O error, disk full, directory locked by another process). Nothing
 * was changed by the failed call; retry with backoff.
 *
 * <pre>{@code
 * catch (SchemaStoreUnavailableException e) { retryLater(e.dataDir()); }
 * }</pre>
 */
public final class SchemaStoreUnavailableException extends TransientException {

  private final String dataDir;

  public SchemaStoreUnavailableException(String dataDir, String operation, Throwable cause) {
    super(ErrorCode.SCHEMA_UNAVAILABLE, "schema store at " + dataDir + " failed to " + operation + ": "
        + cause.getMessage()
        + "; nothing was changed, retry later and check the disk and that no other process uses the directory",
        cause);
    this.dataDir = dataDir;
  }

  public String dataDir() {
    return dataDir;
  }
}
