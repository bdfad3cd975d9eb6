package dev.sluice.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.sluice.api.v1.ArrayValue;
import dev.sluice.api.v1.NullValue;
import dev.sluice.api.v1.Value;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class KeyEncodingTest {

  private static Value i(long v) {
    return Value.newBuilder().setInt64Value(v).build();
  }

  private static Value s(String v) {
    return Value.newBuilder().setStringValue(v).build();
  }

  @Test
  void encodingIsTaggedAndBigEndian() {
    byte[] bytes = KeyEncoding.encode(List.of(i(1), s("ab")));
    assertThat(HexFormat.of().formatHex(bytes)).isEqualTo("02" + "0000000000000001" + "05" + "00000002" + "6162");
  }

  @Test
  void lengthPrefixKeepsAdjacentStringsApart() {
    assertThat(KeyEncoding.encode(List.of(s("ab"), s("c"))))
        .isNotEqualTo(KeyEncoding.encode(List.of(s("a"), s("bc"))));
  }

  @Test
  void negativeZeroAndZeroAreOneKey() {
    Value neg = Value.newBuilder().setDoubleValue(-0.0).build();
    Value pos = Value.newBuilder().setDoubleValue(0.0).build();
    assertThat(KeyEncoding.hash(List.of(neg))).isEqualTo(KeyEncoding.hash(List.of(pos)));
  }

  @Test
  void everyKindEncodes() {
    List<Value> all = List.of(
        Value.newBuilder().setNullValue(NullValue.NULL_VALUE).build(),
        Value.newBuilder().setBoolValue(true).build(), i(-5),
        Value.newBuilder().setDecimalValue("1.50").build(), s("x"),
        Value.newBuilder().setBytesValue(ByteString.copyFrom(new byte[] {1, 2})).build(),
        Value.newBuilder().setDateValue(-3).build(), Value.newBuilder().setTimeMicrosValue(7).build(),
        Value.newBuilder().setJsonValue("{}").build(),
        Value.newBuilder().setUuidValue(ByteString.copyFrom(new byte[16])).build(),
        Value.newBuilder().setArrayValue(ArrayValue.newBuilder().addElements(i(1))).build());
    assertThat(KeyEncoding.encode(all)).hasSizeGreaterThan(all.size());
    assertThat(KeyEncoding.hash(all)).isEqualTo(KeyHash.of(KeyEncoding.encode(all)));
  }
}
