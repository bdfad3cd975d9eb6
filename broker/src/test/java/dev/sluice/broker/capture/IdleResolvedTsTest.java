package dev.sluice.broker.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** With no user transaction at all, the heartbeat keeps the resolved ts moving with lag under 1 s. */
class IdleResolvedTsTest {

  /** The server under test; subclasses run the same checks against another PostgreSQL version. */
  TestPostgres startPostgres() {
    return TestPostgres.start();
  }

  @Test
  void resolvedTsAdvancesOnAnIdleUpstreamWithDefaultHeartbeat(@TempDir Path dir) {
    try (TestPostgres pg = startPostgres();
        CaptureHarness h = CaptureHarness.start(dir, pg, CaptureConfig.defaults("idle"))) {
      for (int i = 0; i < 5; i++) {
        long before = h.events.resolvedTs();
        await().atMost(Duration.ofSeconds(1)).until(() -> h.events.resolvedTs() > before);
        assertThat(h.schemas.resolvedTs()).isGreaterThanOrEqualTo(h.events.resolvedTs());
      }
      await().atMost(Duration.ofSeconds(2)).untilAsserted(() -> {
        assertThat(h.capture.status().lagMs()).isBetween(0L, 999L);
        assertThat(h.registry.get("sluice.capture.lag.ms").gauge().value()).isBetween(0.0, 999.0);
      });
      List<dev.sluice.broker.store.TimeMark> marks = h.events.timeMarks(0, h.events.resolvedTs());
      assertThat(marks).hasSizeGreaterThanOrEqualTo(5);
      long newestMillis = marks.get(marks.size() - 1).commitTimeMicros() / 1000;
      assertThat(System.currentTimeMillis() - newestMillis).isLessThan(1000);
    }
  }
}
