package dev.sluice.broker.changefeed;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.TransientException;
import java.nio.file.Path;

/**
 * The changefeed store (RocksDB) failed an operation; nothing was changed and the request can be
 * retried once the disk problem is fixed.
 *
 * <pre>{@code
 * catch (ChangefeedStoreException e) { retryLater(); }   // code() == STORE_UNAVAILABLE
 * }</pre>
 */
public final class ChangefeedStoreException extends TransientException {

  public ChangefeedStoreException(Path dir, String operation, Throwable cause) {
    super(ErrorCode.STORE_UNAVAILABLE, "changefeed store at " + dir + " failed to " + operation + ": "
        + (cause == null ? "unknown cause" : cause.getMessage()) + "; check disk space and permissions there", cause);
  }
}
