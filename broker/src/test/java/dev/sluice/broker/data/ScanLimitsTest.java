package dev.sluice.broker.data;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The global scan limits shared by data-plane instances, on a fake clock. */
class ScanLimitsTest {

  private final AtomicLong now = new AtomicLong(1_000_000_000L);

  @Test
  void aScanMayStartWhileTheBalanceIsPositiveAndIsChargedWhatItRead() {
    ScanRateLimiter rate = new ScanRateLimiter(1000, now::get);
    assertThat(rate.hasTokens()).isTrue();
    rate.charge(2500); // one scan read more than a second's worth
    assertThat(rate.hasTokens()).isFalse();
    now.addAndGet(1_000_000_000L); // +1 s: balance -1500 + 1000
    assertThat(rate.hasTokens()).isFalse();
    now.addAndGet(600_000_000L); // +0.6 s: balance +100
    assertThat(rate.hasTokens()).isTrue();
  }

  @Test
  void theBurstIsOneSecondOfRate() {
    ScanRateLimiter rate = new ScanRateLimiter(1000, now::get);
    now.addAndGet(60_000_000_000L); // a long idle minute does not bank a minute of reads
    rate.charge(1000);
    assertThat(rate.hasTokens()).isFalse();
  }

  @Test
  void aLowerRateTakesEffectAtOnce() {
    ScanRateLimiter rate = new ScanRateLimiter(1_000_000, now::get);
    rate.setRate(1000);
    rate.charge(1001);
    assertThat(rate.hasTokens()).isFalse();
    assertThat(rate.rate()).isEqualTo(1000);
  }

  @Test
  void slotsCapConcurrentScansAndFollowTheLimit() {
    ScanSlots slots = new ScanSlots(2);
    assertThat(slots.tryAcquire()).isTrue();
    assertThat(slots.tryAcquire()).isTrue();
    assertThat(slots.tryAcquire()).isFalse();
    slots.setLimit(3);
    assertThat(slots.tryAcquire()).isTrue();
    assertThat(slots.running()).isEqualTo(3);
    slots.release();
    slots.setLimit(1);
    assertThat(slots.tryAcquire()).isFalse();
  }
}
