package dev.sluice.schema;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.RequestRejectedException;

/**
 * A DDL that does not fit the stored history: a CREATE of an id that exists, a change of a table that
 * does not exist or was dropped, or a name another live table holds. The store is left unchanged;
 * it usually means the capture missed or mis-decoded an earlier DDL.
 *
 * <pre>{@code
 * try { store.apply(ddl); } catch (InvalidDdlException e) { log.atError().addKeyValue("tableId", e.tableId())...; }
 * }</pre>
 */
public final class InvalidDdlException extends RequestRejectedException {

  private final long commitTs;
  private final long tableId;
  private final long rowSeq;

  public InvalidDdlException(DdlEvent ddl, String reason) {
    super(ErrorCode.INVALID_REQUEST, "DDL " + ddl.type() + " at commit ts " + ddl.commitTs() + " on table "
        + ddl.tableInfoAfter().qualifiedName() + " (id " + ddl.tableId() + ") is invalid: " + reason
        + "; the schema store is unchanged, check that the capture delivered every earlier DDL of this table");
    this.commitTs = ddl.commitTs();
    this.tableId = ddl.tableId();
    this.rowSeq = ddl.rowSeq();
  }

  public long commitTs() {
    return commitTs;
  }

  public long tableId() {
    return tableId;
  }

  /** The refused DDL's place inside its transaction. */
  public long rowSeq() {
    return rowSeq;
  }
}
