package dev.sluice.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

class TableSpanPropertiesTest {

  @Property
  void splitPartsAreContiguousAndCoverTheSpan(
      @ForAll @LongRange(min = 0, max = (1L << 32) - 1) long lo,
      @ForAll @LongRange(min = 1, max = 1L << 32) long width,
      @ForAll @IntRange(min = 1, max = 64) int n) {
    long hi = Math.min(TableSpan.HASH_END, lo + width);
    if (hi - lo < n) {
      return;
    }
    TableSpan span = new TableSpan(9, lo, hi);
    List<TableSpan> parts = span.split(n);
    assertThat(parts).hasSize(n);
    assertThat(parts.get(0).hashLo()).isEqualTo(lo);
    assertThat(parts.get(n - 1).hashHi()).isEqualTo(hi);
    for (int i = 1; i < n; i++) {
      assertThat(parts.get(i).hashLo()).isEqualTo(parts.get(i - 1).hashHi());
    }
  }

  @Property
  void exactlyOnePartContainsEachHash(@ForAll int hash, @ForAll @IntRange(min = 1, max = 100) int n) {
    List<TableSpan> parts = TableSpan.wholeTable(3).split(n);
    assertThat(parts.stream().filter(p -> p.contains(hash)).count()).isEqualTo(1);
  }
}
