package dev.sluice.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.FatalException;
import dev.sluice.api.error.RequestRejectedException;
import dev.sluice.api.error.SluiceException;
import dev.sluice.api.error.TransientException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ValueTypesTest {

  @Test
  void wholeTableSpanContainsEveryHash() {
    TableSpan span = TableSpan.wholeTable(42);
    assertThat(span.isWholeTable()).isTrue();
    assertThat(span.contains(0)).isTrue();
    assertThat(span.contains(-1)).isTrue();
    assertThat(span.contains(Integer.MIN_VALUE)).isTrue();
  }

  @Test
  void spanBoundsAreHalfOpen() {
    TableSpan span = new TableSpan(1, 10, 20);
    assertThat(span.contains(9)).isFalse();
    assertThat(span.contains(10)).isTrue();
    assertThat(span.contains(19)).isTrue();
    assertThat(span.contains(20)).isFalse();
  }

  @Test
  void invalidSpansAreRejectedWithTheValue() {
    assertThatThrownBy(() -> new TableSpan(0, 0, 1)).hasMessageContaining("table id must be positive, got 0");
    assertThatThrownBy(() -> new TableSpan(1, 5, 5)).hasMessageContaining("hash_hi").hasMessageContaining("got 5");
    assertThatThrownBy(() -> new TableSpan(1, 0, TableSpan.HASH_END + 1)).hasMessageContaining("4294967297");
    assertThatThrownBy(() -> new TableSpan(1, -1, 3)).hasMessageContaining("hash_lo");
    assertThatThrownBy(() -> new TableSpan(1, 0, 3).split(4)).hasMessageContaining("width 3 into 4");
    assertThatThrownBy(() -> TableSpan.wholeTable(1).split(0)).hasMessageContaining("into 0");
  }

  @Test
  void spanSurvivesProto() {
    TableSpan span = new TableSpan(7, 100, 200);
    assertThat(TableSpan.fromProto(span.toProto())).isEqualTo(span);
  }

  @Test
  void overlapNeedsSameTableAndSharedHashes() {
    TableSpan a = new TableSpan(1, 0, 10);
    assertThat(a.overlaps(new TableSpan(1, 9, 12))).isTrue();
    assertThat(a.overlaps(new TableSpan(1, 10, 12))).isFalse();
    assertThat(a.overlaps(new TableSpan(2, 0, 10))).isFalse();
  }

  @Test
  void dispatcherIdTextRoundTripsAndAcceptsUuidForm() {
    DispatcherId id = new DispatcherId(0x0123456789abcdefL, 0xfedcba9876543210L);
    assertThat(id.toString()).isEqualTo("0123456789abcdeffedcba9876543210");
    assertThat(DispatcherId.parse(id.toString())).isEqualTo(id);
    assertThat(DispatcherId.parse("01234567-89ab-cdef-fedc-ba9876543210")).isEqualTo(id);
    assertThat(DispatcherId.fromProto(id.toProto())).isEqualTo(id);
    DispatcherId r = DispatcherId.random();
    assertThat(DispatcherId.parse(r.toString())).isEqualTo(r);
  }

  @Test
  void badDispatcherIdsNameTheInput() {
    assertThatThrownBy(() -> DispatcherId.parse("abc")).hasMessageContaining("\"abc\"").hasMessageContaining("32 hex");
    assertThatThrownBy(() -> DispatcherId.parse("zz23456789abcdeffedcba9876543210"))
        .hasMessageContaining("not hexadecimal");
  }

  @Test
  void commitTsReadsAndWritesLsns() {
    assertThat(CommitTs.parseLsn("0/16B3748").value()).isEqualTo(0x16B3748L);
    assertThat(CommitTs.parseLsn("1A/2").value()).isEqualTo(0x1AL << 32 | 2);
    assertThat(CommitTs.of(0x1AL << 32 | 0xFF).toLsnString()).isEqualTo("1A/FF");
    assertThat(CommitTs.of(5).isAfter(CommitTs.of(4))).isTrue();
    assertThatThrownBy(() -> CommitTs.parseLsn("16B3748")).hasMessageContaining("not an LSN");
    assertThatThrownBy(() -> CommitTs.of(-1)).hasMessageContaining("got -1");
  }

  @Test
  void epochsOnlyGrow() {
    assertThat(Epoch.REGISTERED.next()).isEqualTo(Epoch.of(1));
    assertThat(Epoch.of(3).isAfter(Epoch.of(2))).isTrue();
    assertThatThrownBy(() -> Epoch.of(-2)).hasMessageContaining("got -2");
    assertThatThrownBy(() -> Epoch.of(Long.MAX_VALUE).next()).isInstanceOf(ArithmeticException.class);
  }

  @Test
  void keyHashMatchesMurmur3ReferenceVectors() {
    // Reference values of MurmurHash3_x86_32 with seed 0.
    assertThat(KeyHash.of(new byte[0])).isEqualTo(0);
    assertThat(KeyHash.of("hello".getBytes(StandardCharsets.UTF_8))).isEqualTo(0x248bfa47);
    assertThat(KeyHash.of("The quick brown fox jumps over the lazy dog".getBytes(StandardCharsets.UTF_8)))
        .isEqualTo(0x2e4ff723);
    byte[] padded = "xxhelloyy".getBytes(StandardCharsets.UTF_8);
    assertThat(KeyHash.of(padded, 2, 5)).isEqualTo(0x248bfa47);
  }

  @Test
  void everyErrorCodeHasAWireTwinAndBack() {
    for (ErrorCode c : ErrorCode.values()) {
      assertThat(ErrorCode.fromWire(c.toWire())).isEqualTo(c);
      assertThat(c.toWire().getNumber()).isEqualTo(c.number());
    }
    List<String> wireNames = Arrays.stream(dev.sluice.api.v1.ErrorCode.values())
        .filter(w -> w != dev.sluice.api.v1.ErrorCode.UNRECOGNIZED && w.getNumber() != 0)
        .map(w -> w.name().substring("ERROR_CODE_".length()))
        .collect(Collectors.toList());
    assertThat(wireNames).containsExactlyInAnyOrderElementsOf(
        Arrays.stream(ErrorCode.values()).map(Enum::name).toList());
    assertThat(ErrorCode.fromWire(dev.sluice.api.v1.ErrorCode.UNRECOGNIZED)).isEqualTo(ErrorCode.INTERNAL);
  }

  @Test
  void exceptionBranchFollowsTheCodeKind() {
    assertThat(SluiceException.of(ErrorCode.BAD_EPOCH, "x")).isInstanceOf(RequestRejectedException.class);
    assertThat(SluiceException.of(ErrorCode.STORE_UNAVAILABLE, "x")).isInstanceOf(TransientException.class);
    assertThat(SluiceException.of(ErrorCode.STORE_CORRUPT, "x")).isInstanceOf(FatalException.class);
    assertThatThrownBy(() -> new FatalException(ErrorCode.BAD_EPOCH, "x"))
        .hasMessageContaining("BAD_EPOCH is a REJECTED code");
  }
}
