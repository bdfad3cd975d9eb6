package dev.sluice.broker.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Decodes hand-built pgoutput v1 messages, laid out as the PostgreSQL manual documents them. */
class PgOutputDecoderTest {

  private final PgOutputDecoder decoder = new PgOutputDecoder();
  private final Recorder recorder = new Recorder();

  @Test
  void beginCarriesTheCommitLsnAndUnixCommitTime() {
    decode(msg('B').i64(0x16B3748L).i64(1_000_000L).i32(742));
    assertThat(recorder.events).containsExactly(
        "begin lsn=23803720 time=" + (PgOutputDecoder.PG_EPOCH_OFFSET_MICROS + 1_000_000L) + " xid=742");
  }

  @Test
  void commitCarriesCommitAndEndLsn() {
    decode(msg('C').i8(0).i64(100).i64(148).i64(5));
    assertThat(recorder.events).containsExactly(
        "commit lsn=100 end=148 time=" + (PgOutputDecoder.PG_EPOCH_OFFSET_MICROS + 5));
  }

  @Test
  void relationListsColumnsWithKeyFlagsTypesAndModifiers() {
    decode(msg('R').i32(16384).str("public").str("orders").i8('d').i16(2)
        .i8(1).str("id").i32(20).i32(-1)
        .i8(0).str("note").i32(1043).i32(24));
    assertThat(recorder.relations).containsExactly(new PgRelation(16384, "public", "orders", 'd', List.of(
        new PgRelation.Column("id", 20, -1, true), new PgRelation.Column("note", 1043, 24, false))));
  }

  @Test
  void relationOidAboveTwoToTheThirtyOneStaysPositive() {
    decode(msg('R').i32(0xF0000001).str("s").str("t").i8('f').i16(0));
    assertThat(recorder.relations.get(0).oid()).isEqualTo(0xF0000001L);
  }

  @Test
  void typeMessageNamesTheType() {
    decode(msg('Y').i32(90001).str("demo").str("mood"));
    assertThat(recorder.events).containsExactly("type 90001 demo.mood");
  }

  @Test
  void insertDecodesNullUnchangedToastAndTextColumns() {
    decode(msg('I').i32(16384).i8('N').i16(3).i8('t').text("42").i8('n').i8('u'));
    assertThat(recorder.events).containsExactly("insert 16384 new=[t:42, n, u]");
  }

  @Test
  void updateWithoutOldTupleHasOnlyTheNewOne() {
    decode(msg('U').i32(7).i8('N').i16(1).i8('t').text("x"));
    assertThat(recorder.events).containsExactly("update 7 old=none new=[t:x]");
  }

  @Test
  void updateWithOldKeyAndWithFullOldRow() {
    decode(msg('U').i32(7).i8('K').i16(2).i8('t').text("1").i8('n').i8('N').i16(2).i8('t').text("2").i8('t').text("b"));
    decode(msg('U').i32(7).i8('O').i16(1).i8('t').text("a").i8('N').i16(1).i8('t').text("b"));
    assertThat(recorder.events).containsExactly(
        "update 7 old=K[t:1, n] new=[t:2, t:b]",
        "update 7 old=O[t:a] new=[t:b]");
  }

  @Test
  void deleteCarriesKeyOrFullOldRow() {
    decode(msg('D').i32(9).i8('K').i16(1).i8('t').text("5"));
    decode(msg('D').i32(9).i8('O').i16(2).i8('t').text("5").i8('t').text("é"));
    assertThat(recorder.events).containsExactly("delete 9 K[t:5]", "delete 9 O[t:5, t:é]");
  }

  @Test
  void truncateListsRelationsAndOptions() {
    decode(msg('T').i32(2).i8(3).i32(10).i32(11));
    assertThat(recorder.events).containsExactly("truncate [10, 11] cascade=true restart=true");
  }

  @Test
  void messageCarriesFlagsPrefixAndContent() {
    decode(msg('M').i8(1).i64(77).str("sluice_heartbeat").i32(3).raw("abc".getBytes(StandardCharsets.UTF_8)));
    assertThat(recorder.events).containsExactly("message tx=true lsn=77 sluice_heartbeat abc");
  }

  @Test
  void originIsPassedOn() {
    decode(msg('O').i64(5).str("node_a"));
    assertThat(recorder.events).containsExactly("origin 5 node_a");
  }

  @Test
  void decodesFromASliceWithNonZeroArrayOffset() {
    byte[] body = msg('I').i32(1).i8('N').i16(1).i8('t').text("z").bytes();
    byte[] padded = new byte[body.length + 5];
    System.arraycopy(body, 0, padded, 5, body.length);
    decoder.decode(ByteBuffer.wrap(padded, 5, body.length).slice(), recorder);
    assertThat(recorder.events).containsExactly("insert 1 new=[t:z]");
  }

  @Test
  void unknownMessageTypeIsAFormatError() {
    assertThatThrownBy(() -> decode(msg('Z'))).isInstanceOf(PgOutputFormatException.class)
        .hasMessageContaining("unknown pgoutput message type 'Z'");
  }

  @Test
  void truncatedMessagesAreFormatErrorsNotCrashes() {
    byte[] full = msg('I').i32(1).i8('N').i16(1).i8('t').text("hello").bytes();
    for (int len = 1; len < full.length; len++) {
      byte[] cut = Arrays.copyOf(full, len);
      assertThatThrownBy(() -> decoder.decode(ByteBuffer.wrap(cut), recorder))
          .as("cut at %d", len).isInstanceOf(PgOutputFormatException.class);
    }
  }

  @Test
  void unknownTupleKindIsAFormatError() {
    assertThatThrownBy(() -> decode(msg('I').i32(1).i8('N').i16(1).i8('x')))
        .isInstanceOf(PgOutputFormatException.class).hasMessageContaining("unknown tuple column kind 'x'");
  }

  private void decode(Msg m) {
    decoder.decode(ByteBuffer.wrap(m.bytes()), recorder);
  }

  private static Msg msg(char type) {
    return new Msg().i8(type);
  }

  /** Builds a message the way the server lays it out: big-endian, strings NUL-terminated. */
  static final class Msg {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final DataOutputStream out = new DataOutputStream(bytes);

    Msg i8(int v) {
      return write(() -> out.writeByte(v));
    }

    Msg i16(int v) {
      return write(() -> out.writeShort(v));
    }

    Msg i32(int v) {
      return write(() -> out.writeInt(v));
    }

    Msg i64(long v) {
      return write(() -> out.writeLong(v));
    }

    Msg str(String s) {
      return write(() -> {
        out.write(s.getBytes(StandardCharsets.UTF_8));
        out.writeByte(0);
      });
    }

    Msg text(String s) {
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      return i32(b.length).raw(b);
    }

    Msg raw(byte[] b) {
      return write(() -> out.write(b));
    }

    byte[] bytes() {
      return bytes.toByteArray();
    }

    private Msg write(IoAction a) {
      try {
        a.run();
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
      return this;
    }

    interface IoAction {
      void run() throws IOException;
    }
  }

  private static final class Recorder implements PgOutputHandler {
    final List<String> events = new ArrayList<>();
    final List<PgRelation> relations = new ArrayList<>();

    @Override
    public void onBegin(long finalLsn, long commitTimeMicros, int xid) {
      events.add("begin lsn=" + finalLsn + " time=" + commitTimeMicros + " xid=" + xid);
    }

    @Override
    public void onCommit(long commitLsn, long endLsn, long commitTimeMicros) {
      events.add("commit lsn=" + commitLsn + " end=" + endLsn + " time=" + commitTimeMicros);
    }

    @Override
    public void onRelation(PgRelation relation) {
      relations.add(relation);
    }

    @Override
    public void onType(int oid, String namespace, String name) {
      events.add("type " + oid + " " + namespace + "." + name);
    }

    @Override
    public void onInsert(long relationOid, TupleData newTuple) {
      events.add("insert " + relationOid + " new=" + show(newTuple));
    }

    @Override
    public void onUpdate(long relationOid, byte oldKind, TupleData oldTuple, TupleData newTuple) {
      String old = oldTuple == null ? "none" : (char) oldKind + show(oldTuple);
      events.add("update " + relationOid + " old=" + old + " new=" + show(newTuple));
    }

    @Override
    public void onDelete(long relationOid, byte oldKind, TupleData oldTuple) {
      events.add("delete " + relationOid + " " + (char) oldKind + show(oldTuple));
    }

    @Override
    public void onTruncate(long[] relationOids, boolean cascade, boolean restartIdentity) {
      events.add("truncate " + Arrays.toString(relationOids) + " cascade=" + cascade + " restart=" + restartIdentity);
    }

    @Override
    public void onMessage(boolean transactional, long lsn, String prefix, byte[] content) {
      events.add("message tx=" + transactional + " lsn=" + lsn + " " + prefix + " "
          + new String(content, StandardCharsets.UTF_8));
    }

    @Override
    public void onOrigin(long lsn, String name) {
      events.add("origin " + lsn + " " + name);
    }

    private static String show(TupleData t) {
      List<String> cols = new ArrayList<>();
      for (int i = 0; i < t.size(); i++) {
        cols.add(t.kind(i) == TupleData.TEXT ? "t:" + t.text(i) : String.valueOf((char) t.kind(i)));
      }
      return cols.toString();
    }
  }
}
