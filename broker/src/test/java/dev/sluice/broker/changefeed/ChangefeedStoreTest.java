package dev.sluice.broker.changefeed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.dispatcher.Checkpoint;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.RocksDB;

/** Records survive a reopen as written, removed ids keep their generation, foreign formats are refused. */
class ChangefeedStoreTest {

  private static ChangefeedSpec spec() {
    return new ChangefeedSpec(List.of("127.0.0.1:8300"), List.of("public.*"), List.of("public.tmp_*"), 42,
        SinkUri.parse("jdbc:postgresql://127.0.0.1:5432/db?user=u&password=secret"),
        new ChangefeedOptions(2000, 500, "replica", 500, true,
            dev.sluice.dispatcher.changefeed.ApplyMode.TABLE, 3600));
  }

  @Test
  void aRecordSurvivesReopenAsWritten(@TempDir Path dir) {
    FeedCheckpoint cp = new FeedCheckpoint(90, List.of(new FeedCheckpoint.TableCheckpoint(7, "public.t",
        new Checkpoint(90, 91, 3))));
    ChangefeedRecord r = ChangefeedRecord.absent("orders").recreated(spec(), 1000).withCheckpoint(cp, 1000)
        .withRetry(new FeedError("SINK_UNAVAILABLE", "down", true, 999), 2, 5000, 1001)
        .withDeletion(new Deletion(1, DeleteOptions.KEEP_META, 1002, 1, null, 0), 1002)
        .withState(ChangefeedState.REMOVING, 1003);
    try (ChangefeedStore store = ChangefeedStore.open(dir)) {
      store.put(r, true);
    }
    try (ChangefeedStore store = ChangefeedStore.open(dir)) {
      assertThat(store.get("orders")).contains(r);
      assertThat(store.all()).containsExactly(r);
      assertThat(store.get("other")).isEmpty();
    }
  }

  /** A changefeed recorded before initial_load existed never loaded rows: a restart must not start now. */
  @Test
  void aRecordWrittenBeforeInitialLoadExistedReadsAsNone() {
    ChangefeedRecord r = ChangefeedRecord.absent("old").recreated(spec(), 1000);
    assertThat(r.spec().initialLoad()).isEqualTo(dev.sluice.dispatcher.changefeed.InitialLoad.SNAPSHOT);
    io.vertx.core.json.JsonObject json = r.toJson();
    assertThat(ChangefeedRecord.fromJson(json).spec().initialLoad())
        .isEqualTo(dev.sluice.dispatcher.changefeed.InitialLoad.SNAPSHOT);
    json.getJsonObject("spec").remove("initial_load");
    assertThat(ChangefeedRecord.fromJson(json).spec().initialLoad())
        .isEqualTo(dev.sluice.dispatcher.changefeed.InitialLoad.NONE);
  }

  @Test
  void theStoreHoldingSinkPasswordsIsReadableByItsOwnerOnly(@TempDir Path parent) throws Exception {
    Path dir = parent.resolve("data").resolve("changefeeds");
    try (ChangefeedStore store = ChangefeedStore.open(dir)) {
      assertOwnerOnly(dir);
      for (int i = 0; i < 200; i++) {   // enough writes for RocksDB to roll files after open
        store.put(ChangefeedRecord.absent("cf-" + i).recreated(spec(), i), i % 2 == 0);
      }
      assertOwnerOnly(dir);
    }
    assertOwnerOnly(dir);
    // a store left by an older server, with the umask's modes, is tightened when opened
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    try (var files = Files.list(dir)) {
      for (Path f : files.toList()) {
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));
      }
    }
    try (ChangefeedStore store = ChangefeedStore.open(dir)) {
      assertOwnerOnly(dir);
      assertThat(store.all()).hasSize(200);
    }
  }

  private static void assertOwnerOnly(Path dir) throws Exception {
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir))).as(dir.toString())
        .isEqualTo("rwx------");
    try (var files = Files.list(dir)) {
      List<Path> all = files.toList();
      assertThat(all).isNotEmpty();
      for (Path f : all) {
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f))).as(f.toString())
            .isEqualTo("rw-------");
      }
    }
  }

  @Test
  void aRemovedIdKeepsItsGenerationSoARecreateGetsAHigherOne(@TempDir Path dir) {
    ChangefeedRecord g1 = ChangefeedRecord.absent("cf").recreated(spec(), 1)
        .withDeletion(new Deletion(1, DeleteOptions.REMOVE_META, 2, 0, null, 0), 2);
    ChangefeedRecord removed = g1.removed(g1.deletion().completedAt(3), 3);
    try (ChangefeedStore store = ChangefeedStore.open(dir)) {
      store.put(removed, true);
    }
    try (ChangefeedStore store = ChangefeedStore.open(dir)) {
      ChangefeedRecord back = store.get("cf").orElseThrow();
      assertThat(back.state()).isEqualTo(ChangefeedState.REMOVED);
      assertThat(back.spec()).isNull();
      assertThat(back.keptMeta()).isFalse();
      assertThat(back.recreated(spec(), 4).generation()).isEqualTo(2);
    }
  }

  @Test
  void aRecordOfAnotherFormatIsRefusedNotMisread(@TempDir Path dir) throws Exception {
    try (ChangefeedStore store = ChangefeedStore.open(dir)) {
      store.put(ChangefeedRecord.absent("x").recreated(spec(), 1), true);
    }
    try (org.rocksdb.Options o = new org.rocksdb.Options(); RocksDB db = RocksDB.open(o, dir.toString())) {
      db.put("x".getBytes(StandardCharsets.UTF_8), "{\"format\":2,\"id\":\"x\"}".getBytes(StandardCharsets.UTF_8));
    }
    try (ChangefeedStore store = ChangefeedStore.open(dir)) {
      assertThatThrownBy(() -> store.get("x")).isInstanceOf(IllegalStateException.class).hasMessageContaining("format 2");
    }
  }

  @Test
  void sinkUrisAreCheckedAndShownWithoutPasswords() {
    assertThat(SinkUri.parse("jdbc:mariadb://db:3306/app?user=u&password=p").redacted())
        .isEqualTo("jdbc:mariadb://db:3306/app?user=u&password=***");
    assertThat(SinkUri.parse("jdbc:mysql://u:pw@db:3306/app").redacted()).isEqualTo("jdbc:mysql://u:***@db:3306/app");
    assertThat(SinkUri.parse("jsonl:file:/tmp/a.jsonl").file()).isEqualTo(Path.of("/tmp/a.jsonl"));
    assertThat(SinkUri.parse("jsonl:stdout").kind()).isEqualTo(SinkUri.Kind.JSONL_STDOUT);
    assertThat(SinkUri.parse("jsonl:file:relative.jsonl").file()).isEqualTo(Path.of("relative.jsonl"));   // confined later
    assertThatThrownBy(() -> SinkUri.parse("jsonl:file:")).hasMessageContaining("file path");
    assertThatThrownBy(() -> SinkUri.parse("jsonl:file:/tmp/dir/")).hasMessageContaining("file path");
    assertThatThrownBy(() -> SinkUri.parse("jdbc:oracle:thin:@h:1521:x")).hasMessageContaining("jdbc:postgresql://");
    assertThatThrownBy(() -> SinkUri.parse("jdbc:postgresql:///db")).hasMessageContaining("host");
    assertThatThrownBy(() -> SinkUri.parse("jdbc:postgresql://h:5432")).hasMessageContaining("database");
    assertThatThrownBy(() -> SinkUri.parse("s3://bucket/x?password=hunter2")).hasMessageNotContaining("hunter2");
  }
}
