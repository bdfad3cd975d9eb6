package dev.sluice.schema;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * An endless, deterministic DDL sequence shared by the crash test and its child JVM, so the parent can
 * rebuild exactly what the child applied. Per table id {@code k}: create, four added columns, a rename,
 * a truncate, and a drop (even ids) or one more column (odd ids). Queries are padded to 2 KiB so that a
 * write batch spans several pages and a torn write has room to happen.
 */
final class DdlScript implements Iterator<DdlEvent> {

  static final long FIRST_TS = 1_000;
  static final long TS_STEP = 10;
  private static final String PADDING = " ".repeat(2_048);

  private int next;
  private TableInfo current;

  /** The first {@code n} DDLs of the script. */
  static List<DdlEvent> first(int n) {
    DdlScript script = new DdlScript();
    List<DdlEvent> ddls = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      ddls.add(script.next());
    }
    return ddls;
  }

  @Override
  public boolean hasNext() {
    return true;
  }

  @Override
  public DdlEvent next() {
    long ts = FIRST_TS + next * TS_STEP;
    long tableId = next / 8 + 1;
    int step = next % 8;
    DdlType type;
    TableInfo after;
    if (step == 0) {
      type = DdlType.CREATE_TABLE;
      after = Tables.table(tableId, "t" + tableId, ts);
    } else if (step == 5) {
      type = DdlType.RENAME_TABLE;
      after = Tables.renamed(current, "t" + tableId + "_renamed");
    } else if (step == 6) {
      type = DdlType.TRUNCATE_TABLE;
      after = current;
    } else if (step == 7 && tableId % 2 == 0) {
      type = DdlType.DROP_TABLE;
      after = current;
    } else {
      type = DdlType.ADD_COLUMN;
      after = Tables.withColumn(current, "c" + next);
    }
    DdlEvent ddl = new DdlEvent(ts, type, "/* " + type + " " + next + " */" + PADDING, after.withVersion(ts),
        "postgresql");
    current = ddl.tableInfoAfter();
    next++;
    return ddl;
  }
}
