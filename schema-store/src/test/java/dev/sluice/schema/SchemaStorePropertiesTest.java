package dev.sluice.schema;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.schema.RandomDdlHistory.Op;
import dev.sluice.schema.RandomDdlHistory.Step;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * Random DDL histories (create, add/drop/rename column, rename table, truncate, drop, re-create under
 * the same name with a new id, migrations changing one table several times in one transaction at rising
 * row seqs) applied to the store and to {@link SchemaModel}: every query agrees at
 * every interesting ts and some random ones, before and after each GC and each reopen, and at the end
 * before and after a final reopen.
 */
class SchemaStorePropertiesTest {

  @Property(tries = 100)
  void storeAnswersLikeTheModel(@ForAll("histories") List<Op> ops, @ForAll boolean uncached, @ForAll long seed)
      throws IOException {
    Path dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "schema-prop-");
    Random random = new Random(seed);
    try (RandomDdlHistory history = new RandomDdlHistory(dir, uncached ? 0 : 1_000)) {
      for (int i = 0; i < ops.size(); i++) {
        Op op = ops.get(i);
        boolean checkpoint = op.step() == Step.GC || op.step() == Step.REOPEN;
        if (checkpoint) {
          assertAgree(history, random, "before step " + i + " " + op);
        }
        history.run(op);
        if (checkpoint) {
          assertAgree(history, random, "after step " + i + " " + op);
        }
      }
      assertAgree(history, random, "at the end");
      SchemaModel model = history.model();
      Statistics.label("DDLs applied").collect(model.applied().size() / 5 * 5);
      Statistics.label("drops, re-creates").collect(
          model.applied().stream().filter(d -> d.type() == DdlType.DROP_TABLE).count() > 0,
          model.names().size() < model.tableIds().size());
      Statistics.label("GC point set").collect(model.gcTs() > 0);
      Statistics.label("several versions at one ts").collect(model.applied().stream().anyMatch(d -> d.rowSeq() > 0));
      history.reopen();
      assertAgree(history, random, "after the final reopen");
    }
  }

  @Provide
  Arbitrary<List<Op>> histories() {
    Arbitrary<Step> steps = Arbitraries.frequencyOf(
        Tuple.of(5, Arbitraries.just(Step.CREATE)),
        Tuple.of(3, Arbitraries.just(Step.ADD_COLUMN)),
        Tuple.of(2, Arbitraries.just(Step.DROP_COLUMN)),
        Tuple.of(2, Arbitraries.just(Step.RENAME_COLUMN)),
        Tuple.of(2, Arbitraries.just(Step.RENAME_TABLE)),
        Tuple.of(1, Arbitraries.just(Step.TRUNCATE)),
        Tuple.of(2, Arbitraries.just(Step.DROP)),
        Tuple.of(2, Arbitraries.just(Step.RECREATE)),
        Tuple.of(3, Arbitraries.just(Step.MIGRATION)),
        Tuple.of(4, Arbitraries.just(Step.ADVANCE_RESOLVED)),
        Tuple.of(2, Arbitraries.just(Step.GC)),
        Tuple.of(1, Arbitraries.just(Step.REOPEN)));
    return Combinators.combine(steps, Arbitraries.integers().between(0, 1_000), Arbitraries.integers().between(1, 4))
        .as(Op::new).list().ofMinSize(5).ofMaxSize(40).withSizeDistribution(RandomDistribution.uniform());
  }

  private static void assertAgree(RandomDdlHistory history, Random random, String when) {
    SchemaModel model = history.model();
    RocksSchemaStore store = history.store();
    assertThat(store.lastDdlTs()).as("lastDdlTs %s", when).isEqualTo(model.lastDdlTs());
    assertThat(store.resolvedTs()).as("resolvedTs %s", when).isEqualTo(model.resolvedTs());
    assertThat(store.gcTs()).as("gcTs %s", when).isEqualTo(model.gcTs());

    List<Long> times = timestamps(model, random);
    TreeSet<Long> ids = model.tableIds();
    ids.add(1L);   // never created
    for (long id : ids) {
      for (long ts : times) {
        assertThat(Answer.from(() -> store.tableInfoAt(id, ts)))
            .as("tableInfoAt(%d, %d) %s", id, ts, when).isEqualTo(model.tableInfoAt(id, ts));
      }
      for (DdlEvent d : model.applied()) {
        for (long seq : List.of(0L, d.rowSeq(), d.rowSeq() + 1, Long.MAX_VALUE)) {
          assertThat(Answer.from(() -> store.tableInfoBefore(id, d.commitTs(), seq)))
              .as("tableInfoBefore(%d, %d, %d) %s", id, d.commitTs(), seq, when)
              .isEqualTo(model.tableInfoBefore(id, d.commitTs(), seq));
        }
      }
      for (int i = 0; i < times.size(); i++) {
        long from = times.get(i);
        for (long to : List.of(from + 1, times.get(random.nextInt(times.size())), Long.MAX_VALUE)) {
          assertThat(Answer.from(() -> store.ddlEvents(id, from, to)))
              .as("ddlEvents(%d, %d, %d) %s", id, from, to, when).isEqualTo(model.ddlEvents(id, from, to));
        }
      }
    }
    List<TableName> names = new java.util.ArrayList<>(model.names());
    names.add(new TableName(Tables.SCHEMA, "never"));
    for (TableName name : names) {
      for (long ts : times) {
        assertThat(Answer.from(() -> store.tableByName(name.schemaName(), name.tableName(), ts)))
            .as("tableByName(%s, %d) %s", name.qualified(), ts, when).isEqualTo(model.tableByName(name, ts));
      }
    }
    for (long ts : times) {
      long to = times.get(random.nextInt(times.size()));
      assertThat(Answer.from(() -> store.tablesAt(ts))).as("tablesAt(%d) %s", ts, when).isEqualTo(model.tablesAt(ts));
      assertThat(Answer.from(() -> store.allDdlEvents(ts, to)))
          .as("allDdlEvents(%d, %d) %s", ts, to, when).isEqualTo(model.allDdlEvents(ts, to));
    }
  }

  /** Every commit ts and its neighbours, the GC and resolved ts and theirs, 0, and a few random ones. */
  private static List<Long> timestamps(SchemaModel model, Random random) {
    TreeSet<Long> times = new TreeSet<>(List.of(0L, 1L, model.gcTs(), model.gcTs() + 1, model.resolvedTs(),
        model.resolvedTs() + 1, model.lastDdlTs() + 5));
    if (model.gcTs() > 0) {
      times.add(model.gcTs() - 1);
    }
    for (DdlEvent d : model.applied()) {
      times.addAll(List.of(d.commitTs() - 1, d.commitTs(), d.commitTs() + 1));
    }
    for (int i = 0; i < 5; i++) {
      times.add((long) random.nextInt((int) model.lastDdlTs() + 10));
    }
    return List.copyOf(times);
  }
}
