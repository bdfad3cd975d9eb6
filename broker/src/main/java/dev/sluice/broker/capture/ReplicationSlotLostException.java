package dev.sluice.broker.capture;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.FatalException;

/**
 * The replication slot capture must resume from is missing or was invalidated by PostgreSQL:
 * changes after the stored position may be gone, so capture stops instead of silently skipping them.
 *
 * <pre>{@code
 * throw ReplicationSlotLostException.missing("sluice_node_1", "0/16B3748", dataDir);
 * }</pre>
 */
public final class ReplicationSlotLostException extends FatalException {

  private final String slot;

  private ReplicationSlotLostException(String slot, String message) {
    super(ErrorCode.REPLICATION_SLOT_LOST, message);
    this.slot = slot;
  }

  public String slot() {
    return slot;
  }

  static ReplicationSlotLostException missing(String slot, String storedLsn) {
    return new ReplicationSlotLostException(slot, "replication slot " + slot
        + " does not exist, but the event store has captured up to LSN " + storedLsn
        + ": changes after it may have been lost. Stop the broker, delete its data directory and start it again"
        + " to capture afresh (changefeeds must then be recreated from the new start)");
  }

  static ReplicationSlotLostException invalidated(String slot, String reason) {
    return new ReplicationSlotLostException(slot, "replication slot " + slot + " was invalidated by PostgreSQL ("
        + reason + "): the WAL it needed is gone and changes may have been lost. Drop it (SELECT "
        + "pg_drop_replication_slot('" + slot + "')), delete the broker's data directory and start the broker again;"
        + " raise max_slot_wal_keep_size to keep this from recurring");
  }
}
