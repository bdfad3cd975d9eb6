package dev.sluice.dispatcher.collector;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.sluice.api.v1.CopyRows;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class LineBytesTest {

  private static byte[] range(LineBytes b) {
    return Arrays.copyOfRange(b.array(), b.from(), b.to());
  }

  @Test
  void parsedLinesAreReadInPlaceTheSameArrayEachTime() throws Exception {
    byte[] wire = CopyRows.newBuilder().setLines(ByteString.copyFromUtf8("1\ta\n2\tb\n")).setRowCount(2).build()
        .toByteArray();
    ByteString lines = CopyRows.parseFrom(wire).getLines();
    LineBytes first = LineBytes.of(lines);
    LineBytes second = LineBytes.of(lines);
    assertThat(first.array()).isSameAs(second.array());
    assertThat(new String(range(first), StandardCharsets.UTF_8)).isEqualTo("1\ta\n2\tb\n");
  }

  @Test
  void aSubstringKeepsItsOffsetIntoTheSharedArray() {
    ByteString whole = ByteString.copyFromUtf8("xx1\ta\n2\tb\nyy");
    LineBytes b = LineBytes.of(whole.substring(2, 10));
    assertThat(b.from()).isEqualTo(2);
    assertThat(b.to()).isEqualTo(10);
    assertThat(new String(range(b), StandardCharsets.UTF_8)).isEqualTo("1\ta\n2\tb\n");
  }

  @Test
  void aRopeOrADirectBufferIsCopiedWhole() {
    String half = "9".repeat(300) + "\n";
    ByteString rope = ByteString.copyFromUtf8(half).concat(ByteString.copyFromUtf8(half));
    assertThat(new String(range(LineBytes.of(rope)), StandardCharsets.UTF_8)).isEqualTo(half + half);
    ByteBuffer direct = ByteBuffer.allocateDirect(4).put("1\n2\n".getBytes(StandardCharsets.UTF_8)).flip();
    LineBytes fromDirect = LineBytes.of(com.google.protobuf.UnsafeByteOperations.unsafeWrap(direct));
    assertThat(fromDirect.from()).isZero();
    assertThat(new String(range(fromDirect), StandardCharsets.UTF_8)).isEqualTo("1\n2\n");
  }
}
