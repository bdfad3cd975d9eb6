package dev.sluice.broker.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.KeyEncoding;
import dev.sluice.api.KeyHash;
import dev.sluice.api.v1.Value;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RowIdentityTest {

  @Test
  void consecutiveIntegerKeysOfAChunkGetDistinctHashes() {
    // Arrays.hashCode of the encoded keys gave 8,192 consecutive keys about 1,300 values: the merge's map treeified
    Set<Integer> hashes = new HashSet<>();
    for (long k = 100_000; k < 100_000 + 8192; k++) {
      hashes.add(RowIdentity.of(List.of(Value.newBuilder().setInt64Value(k).build())).hashCode());
    }
    assertThat(hashes.size()).isGreaterThan(8_180);
  }

  @Test
  void theKeyHashIsTheOneCaptureComputes() {
    List<Value> key = List.of(Value.newBuilder().setInt64Value(42).build(), Value.newBuilder().setStringValue("a").build());
    assertThat(RowIdentity.of(key).keyHash()).isEqualTo(KeyHash.of(KeyEncoding.encode(key)));
  }

  @Test
  void anIntegerKeysFastIdentityIsItsValuesIdentity() {
    for (long k : new long[] {0, 1, -1, 42, Long.MAX_VALUE, Long.MIN_VALUE, 1L << 40}) {
      RowIdentity slow = RowIdentity.of(List.of(Value.newBuilder().setInt64Value(k).build()));
      assertThat(RowIdentity.ofInt64(k)).isEqualTo(slow);
      assertThat(RowIdentity.ofInt64(k).keyHash()).isEqualTo(slow.keyHash());
    }
  }
}
