package dev.sluice.broker.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The snapshot rate limits, with time passed in. */
class SnapshotThrottleTest {

  private static final long SECOND = 1_000_000_000L;

  @Test
  void noLimitNeverWaits() {
    SnapshotThrottle t = new SnapshotThrottle(0, 0, 0);
    t.charge(1_000_000, 1L << 40, 0);
    assertThat(t.waitNanos(0)).isZero();
  }

  @Test
  void aChunkBeyondTheRowRateMakesTheNextOneWaitForItsDebt() {
    SnapshotThrottle t = new SnapshotThrottle(1000, 0, 0);
    assertThat(t.waitNanos(0)).isZero();                 // a full second's burst
    t.charge(3000, 0, 0);                                // 2000 rows of debt after the burst
    assertThat(t.waitNanos(0)).isEqualTo(2_001_000_000L); // back above zero after 2.001 s
    assertThat(t.waitNanos(2 * SECOND)).isPositive();
    assertThat(t.waitNanos(2 * SECOND + 2_000_000)).isZero();
  }

  @Test
  void theSlowerOfRowsAndBytesDecides() {
    SnapshotThrottle t = new SnapshotThrottle(1_000_000, 1024, 0);
    t.charge(10, 1024 * 5, 0);
    assertThat(t.waitNanos(0)).isGreaterThan(3 * SECOND);
  }

  @Test
  void aLowerRateAtRuntimeCutsTheBurstAndTakesEffectAtOnce() {
    SnapshotThrottle t = new SnapshotThrottle(1_000_000, 0, 0);
    t.setRates(10, 0, 0);
    t.charge(10, 0, 0);
    assertThat(t.waitNanos(0)).isEqualTo(100_000_000L);   // one row of the new rate
    t.setRates(0, 0, 0);
    assertThat(t.waitNanos(0)).as("lifted").isZero();
  }

  @Test
  void negativeRatesAreRefusedByName() {
    assertThatThrownBy(() -> new SnapshotThrottle(-1, 0, 0)).hasMessageContaining("rows/s");
  }
}
