package dev.sluice.schema;

/** The kind of a schema change; mirrors {@code sluice.v1.DdlType}. */
public enum DdlType {
  CREATE_TABLE(dev.sluice.api.v1.DdlType.DDL_TYPE_CREATE_TABLE),
  ALTER_TABLE(dev.sluice.api.v1.DdlType.DDL_TYPE_ALTER_TABLE),
  RENAME_TABLE(dev.sluice.api.v1.DdlType.DDL_TYPE_RENAME_TABLE),
  TRUNCATE_TABLE(dev.sluice.api.v1.DdlType.DDL_TYPE_TRUNCATE_TABLE),
  DROP_TABLE(dev.sluice.api.v1.DdlType.DDL_TYPE_DROP_TABLE),
  ADD_COLUMN(dev.sluice.api.v1.DdlType.DDL_TYPE_ADD_COLUMN),
  DROP_COLUMN(dev.sluice.api.v1.DdlType.DDL_TYPE_DROP_COLUMN),
  RENAME_COLUMN(dev.sluice.api.v1.DdlType.DDL_TYPE_RENAME_COLUMN),
  ALTER_COLUMN_TYPE(dev.sluice.api.v1.DdlType.DDL_TYPE_ALTER_COLUMN_TYPE),
  CREATE_INDEX(dev.sluice.api.v1.DdlType.DDL_TYPE_CREATE_INDEX),
  DROP_INDEX(dev.sluice.api.v1.DdlType.DDL_TYPE_DROP_INDEX),
  OTHER(dev.sluice.api.v1.DdlType.DDL_TYPE_OTHER),
  /** A user-defined type the table uses changed; the new definition is in the columns' user types. */
  ALTER_TYPE(dev.sluice.api.v1.DdlType.DDL_TYPE_ALTER_TYPE);

  private final dev.sluice.api.v1.DdlType wire;

  DdlType(dev.sluice.api.v1.DdlType wire) {
    this.wire = wire;
  }

  public dev.sluice.api.v1.DdlType toProto() {
    return wire;
  }

  public static DdlType fromProto(dev.sluice.api.v1.DdlType wire) {
    for (DdlType t : values()) {
      if (t.wire == wire) {
        return t;
      }
    }
    throw new IllegalArgumentException("unknown DDL type " + wire);
  }
}
