package dev.sluice.schema;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.FatalException;

/**
 * The stored data cannot be read: an undecodable record, a missing version the index points to, or a
 * format version this build does not know. An operator must restore or rebuild the directory.
 *
 * <pre>{@code
 * catch (SchemaStoreCorruptException e) { shutDown(e.getMessage()); }
 * }</pre>
 */
public final class SchemaStoreCorruptException extends FatalException {

  public SchemaStoreCorruptException(String dataDir, String problem, Throwable cause) {
    super(ErrorCode.STORE_CORRUPT, "schema store at " + dataDir + " is unreadable: " + problem
        + "; stop the broker and restore the directory from a backup or delete it to rebuild from the source",
        cause);
  }
}
