package dev.sluice.broker.data;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code sluice.changefeed.resolved.lag.ms{changefeed}}: how long ago the stores resolved the lowest
 * watermark any dispatcher of the changefeed was sent, over every data-plane instance. Injected clock: the
 * stores resolve ts 100, 200 and 300 at 1 s, 2 s and 3 s.
 */
class ChangefeedProgressTest {

  private static final long S = 1_000_000_000L;
  final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  final AtomicLong now = new AtomicLong();
  ChangefeedProgress progress;

  @BeforeEach
  void resolve() {
    progress = new ChangefeedProgress(2, meters, now::get);
    progress.observe(100, 1 * S);
    progress.observe(200, 2 * S);
    progress.observe(200, 2 * S + 500_000_000L);   // the same ts seen again: still first resolved at 2 s
    progress.observe(300, 3 * S);
    now.set(5 * S);
  }

  private double lag(String changefeed) {
    return meters.get("sluice.changefeed.resolved.lag.ms").tag("changefeed", changefeed).gauge().value();
  }

  @Test
  void lagIsTheTimeSinceTheStoresWereFirstPastTheLowestWatermark() {
    progress.publish(0, Map.of("cf", 100L));
    assertThat(lag("cf")).as("past 100 since ts 200 resolved at 2 s").isEqualTo(3000.0);
    now.addAndGet(S);
    assertThat(lag("cf")).as("it grows while the watermark stands").isEqualTo(4000.0);
  }

  @Test
  void theLowestWatermarkOverEveryInstanceCounts() {
    progress.publish(0, Map.of("cf", 300L));
    progress.publish(1, Map.of("cf", 200L));
    assertThat(lag("cf")).as("instance 1 holds it back to 200 (past it since 3 s)").isEqualTo(2000.0);
    progress.publish(1, Map.of());
    assertThat(lag("cf")).as("instance 1 has no dispatcher of it any more").isZero();
  }

  @Test
  void aChangefeedAtTheResolvedTsHasNoLagAndEachChangefeedHasItsOwnMeter() {
    progress.publish(0, Map.of("caught-up", 300L, "behind", 200L));
    assertThat(lag("caught-up")).isZero();
    assertThat(lag("behind")).isEqualTo(2000.0);
    progress.publish(0, Map.of("behind", 250L));
    assertThat(lag("behind")).as("between samples: since the first one past it").isEqualTo(2000.0);
    assertThat(lag("caught-up")).as("no streaming dispatcher: no lag").isZero();
  }

  @Test
  void noSampleYetMeansNoLag() {
    ChangefeedProgress fresh = new ChangefeedProgress(1, meters, now::get);
    fresh.publish(0, Map.of("new", 5L));
    assertThat(lag("new")).isZero();
  }
}
