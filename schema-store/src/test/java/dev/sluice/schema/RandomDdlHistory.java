package dev.sluice.schema;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Drives a real {@link RocksSchemaStore} and a {@link SchemaModel} through the same random history. A
 * step is abstract ({@link Step} plus two numbers); this class turns it into a DDL that is valid for
 * the current state (a live table to alter, a free name to take) or skips it when none fits.
 */
final class RandomDdlHistory implements AutoCloseable {

  /** What one step of a history does. */
  enum Step { CREATE, ADD_COLUMN, DROP_COLUMN, RENAME_COLUMN, RENAME_TABLE, TRUNCATE, DROP, RECREATE,
    /** One transaction changing a table several times (and creating another) at increasing row seqs. */
    MIGRATION, ADVANCE_RESOLVED, GC, REOPEN }

  /**
   * One step of a random history.
   *
   * @param step what to do
   * @param pick chooses the table, column or name, and the GC point
   * @param gap  how far the commit ts moves, 1 or more
   */
  record Op(Step step, int pick, int gap) {
  }

  /** Few names, so that renames, drops and re-creates reuse them. */
  private static final List<String> NAMES = List.of("orders", "items", "users", "audit");

  private final Path dir;
  private final long cacheMaxEntries;
  private final SchemaModel model = new SchemaModel();
  private RocksSchemaStore store;
  private long nextTableId = 100;
  private int nextColumn;

  RandomDdlHistory(Path dir, long cacheMaxEntries) {
    this.dir = dir;
    this.cacheMaxEntries = cacheMaxEntries;
    this.store = open();
  }

  SchemaModel model() {
    return model;
  }

  RocksSchemaStore store() {
    return store;
  }

  /** Runs one step on both; returns whether it changed anything the queries can see. */
  void run(Op op) {
    long ts = Math.max(model.lastDdlTs(), model.resolvedTs()) + op.gap();
    List<TableInfo> live = liveTables();
    Optional<TableInfo> target = live.isEmpty() ? Optional.empty() : Optional.of(live.get(op.pick() % live.size()));
    switch (op.step()) {
      case CREATE -> apply(Tables.create(ts, nextTableId++, freeName(NAMES.get(op.pick() % NAMES.size())),
          "c" + nextColumn++));
      case ADD_COLUMN -> target.ifPresent(t ->
          apply(Tables.change(ts, DdlType.ADD_COLUMN, Tables.withColumn(t, "c" + nextColumn++))));
      case DROP_COLUMN -> target.ifPresent(t -> {
        List<ColumnInfo> nonKey = t.columns().stream().filter(c -> !t.primaryKey().contains(c.name())).toList();
        if (!nonKey.isEmpty()) {
          String column = nonKey.get(op.pick() % nonKey.size()).name();
          apply(Tables.change(ts, DdlType.DROP_COLUMN, Tables.withoutColumn(t, column)));
        }
      });
      case RENAME_COLUMN -> target.ifPresent(t -> {
        String column = t.columns().get(op.pick() % t.columns().size()).name();
        apply(Tables.change(ts, DdlType.RENAME_COLUMN, Tables.withColumnRenamed(t, column, "r" + nextColumn++)));
      });
      case RENAME_TABLE -> target.ifPresent(t -> {
        String name = NAMES.get(op.pick() / 7 % NAMES.size());
        String newName = name.equals(t.tableName()) ? t.tableName() + "_" + nextColumn++ : freeName(name);
        apply(Tables.change(ts, DdlType.RENAME_TABLE, Tables.renamed(t, newName)));
      });
      case TRUNCATE -> target.ifPresent(t -> apply(Tables.change(ts, DdlType.TRUNCATE_TABLE, t)));
      case DROP -> target.ifPresent(t -> apply(Tables.change(ts, DdlType.DROP_TABLE, t)));
      case RECREATE -> droppedNames().stream().filter(n -> holder(n).isEmpty()).findFirst()
          .ifPresent(n -> apply(Tables.create(ts, nextTableId++, n, "c" + nextColumn++)));
      case MIGRATION -> target.ifPresent(t -> migration(ts, t, op));
      case ADVANCE_RESOLVED -> {
        long resolved = op.pick() % 2 == 0 ? model.lastDdlTs() : model.lastDdlTs() + op.gap();
        store.advanceResolvedTs(resolved);
        model.advanceResolvedTs(resolved);
      }
      case GC -> {
        long gcTs = op.pick() % (model.resolvedTs() + 2);
        store.gc(gcTs);
        model.gc(gcTs);
      }
      case REOPEN -> reopen();
    }
  }

  /**
   * ADD COLUMN, a row written, SET NOT NULL (another version, same columns), maybe a table created in
   * between, DROP COLUMN: one apply at one commit ts, row seqs rising by {@code op.gap()}.
   */
  private void migration(long ts, TableInfo t, Op op) {
    List<DdlEvent> txn = new ArrayList<>();
    long seq = op.pick() % 3;
    String added = "c" + nextColumn++;
    TableInfo v = Tables.withColumn(t, added);
    txn.add(Tables.changeAt(ts, seq, DdlType.ADD_COLUMN, v));
    seq += op.gap();
    v = notNull(v, added);
    txn.add(Tables.changeAt(ts, seq, DdlType.ALTER_TABLE, v));
    if (op.pick() % 2 == 0) {
      seq += op.gap();
      txn.add(Tables.changeAt(ts, seq, DdlType.CREATE_TABLE, Tables.table(nextTableId++,
          freeName(NAMES.get(op.pick() % NAMES.size())), ts, "c" + nextColumn++)));
    }
    seq += 1;
    txn.add(Tables.changeAt(ts, seq, DdlType.DROP_COLUMN, Tables.withoutColumn(v, added)));
    store.apply(txn);
    txn.forEach(model::apply);
  }

  private static TableInfo notNull(TableInfo t, String column) {
    List<ColumnInfo> columns = t.columns().stream().map(c -> c.name().equals(column)
        ? new ColumnInfo(c.name(), c.sourceType(), c.kind(), false, c.defaultExpr(), c.elementKind()) : c).toList();
    return new TableInfo(t.tableId(), t.schemaName(), t.tableName(), columns, t.primaryKey(), t.version());
  }

  void reopen() {
    store.close();
    store = open();
  }

  @Override
  public void close() throws IOException {
    store.close();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  private void apply(DdlEvent ddl) {
    store.apply(ddl);
    model.apply(ddl);
  }

  private List<TableInfo> liveTables() {
    List<TableInfo> live = new ArrayList<>();
    for (long id : model.tableIds()) {
      model.latest(id).ifPresent(live::add);
    }
    return live;
  }

  private Optional<TableInfo> holder(String name) {
    return liveTables().stream().filter(t -> t.tableName().equals(name)).findFirst();
  }

  /** The name when no live table holds it, else a fresh one. */
  private String freeName(String name) {
    return holder(name).isEmpty() ? name : name + "_" + nextColumn++;
  }

  private List<String> droppedNames() {
    return model.applied().stream().filter(d -> d.type() == DdlType.DROP_TABLE)
        .map(d -> d.tableInfoAfter().tableName()).distinct().toList();
  }

  private RocksSchemaStore open() {
    // syncWrites off: fsync adds nothing to what this test checks (logic); the crash test covers it
    return RocksSchemaStore.open(SchemaStoreConfig.at(dir).withCacheMaxEntries(cacheMaxEntries).withSyncWrites(false),
        new SimpleMeterRegistry());
  }
}
