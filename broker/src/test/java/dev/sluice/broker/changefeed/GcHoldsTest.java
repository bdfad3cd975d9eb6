package dev.sluice.broker.changefeed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.dispatcher.Checkpoint;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Issue #16, case 6: the GC hold of a changefeed by state and time since its checkpoint advanced (1 h TTL). */
class GcHoldsTest {

  private static final long HOUR = Duration.ofHours(1).toMillis();
  private static final long T0 = 1_000_000;

  private static ChangefeedSpec spec(String... brokers) {
    return new ChangefeedSpec(List.of(brokers), List.of("public.*"), List.of(), 0,
        SinkUri.parse("jsonl:file:/tmp/x.jsonl"), ChangefeedOptions.defaults().withGcTtlS(3600));
  }

  /** A changefeed whose checkpoint advanced to 500 at T0, then reached {@code state}. */
  private static ChangefeedRecord at(ChangefeedState state) {
    ChangefeedRecord r = ChangefeedRecord.absent("cf").recreated(spec(), T0 - 10)
        .withCheckpoint(new FeedCheckpoint(500, List.of(new FeedCheckpoint.TableCheckpoint(1, "public.t",
            Checkpoint.at(500)))), T0);
    if (state == ChangefeedState.REMOVED) {
      ChangefeedRecord removing = r.withDeletion(new Deletion(1, DeleteOptions.KEEP_META, T0, 0, null, 0), T0)
          .withState(ChangefeedState.REMOVING, T0);
      return removing.removed(removing.deletion().completedAt(T0), T0);
    }
    return r.withState(state, T0);
  }

  static Stream<Arguments> table() {
    return Stream.of(
        // state, ms after the checkpoint last advanced, phase, remaining ms
        Arguments.of(ChangefeedState.NORMAL, 0L, GcHolds.Phase.RUNNING, -1L),
        Arguments.of(ChangefeedState.NORMAL, 10 * HOUR, GcHolds.Phase.RUNNING, -1L),
        Arguments.of(ChangefeedState.PAUSED, 0L, GcHolds.Phase.HOLDING, HOUR),
        Arguments.of(ChangefeedState.PAUSED, HOUR * 4 / 5 - 1, GcHolds.Phase.HOLDING, HOUR / 5 + 1),
        Arguments.of(ChangefeedState.PAUSED, HOUR * 4 / 5, GcHolds.Phase.EXPIRING, HOUR / 5),
        Arguments.of(ChangefeedState.PAUSED, HOUR - 1, GcHolds.Phase.EXPIRING, 1L),
        Arguments.of(ChangefeedState.PAUSED, HOUR, GcHolds.Phase.EXPIRED, -1L),
        Arguments.of(ChangefeedState.FAILED, HOUR / 2, GcHolds.Phase.HOLDING, HOUR / 2),
        Arguments.of(ChangefeedState.FAILED, 2 * HOUR, GcHolds.Phase.EXPIRED, -1L),
        Arguments.of(ChangefeedState.REMOVING, HOUR / 2, GcHolds.Phase.HOLDING, HOUR / 2),
        Arguments.of(ChangefeedState.REMOVED, HOUR / 2, GcHolds.Phase.HOLDING, HOUR / 2),
        Arguments.of(ChangefeedState.REMOVED, HOUR, GcHolds.Phase.EXPIRED, -1L));
  }

  @ParameterizedTest(name = "{0} after {1} ms: {2}")
  @MethodSource("table")
  void theHoldFollowsStateAndTime(ChangefeedState state, long afterMs, GcHolds.Phase phase, long remainingMs) {
    GcHolds.Hold h = GcHolds.of(at(state), T0 + afterMs);
    assertThat(h.phase()).isEqualTo(phase);
    assertThat(h.remainingMs(T0 + afterMs)).isEqualTo(remainingMs);
    assertThat(h.heldTs()).isEqualTo(500);
    assertThat(GcHolds.lowest(List.of(at(state)), T0 + afterMs)).isEqualTo(phase.holds() ? 500 : Long.MAX_VALUE);
  }

  @Test
  void anAdvanceRestartsTheClockAndAnExpiryStaysUntilTheCheckpointMoves() {
    ChangefeedRecord paused = at(ChangefeedState.PAUSED);
    ChangefeedRecord expired = paused.withGcExpired(T0 + HOUR);
    assertThat(GcHolds.of(expired, T0).phase()).isEqualTo(GcHolds.Phase.EXPIRED);   // marked: even a clock going back
    ChangefeedRecord resumed = expired.withState(ChangefeedState.NORMAL, T0 + 2 * HOUR)
        .withCheckpoint(new FeedCheckpoint(600, List.of()), T0 + 2 * HOUR);
    ChangefeedRecord pausedAgain = resumed.withState(ChangefeedState.PAUSED, T0 + 2 * HOUR);
    assertThat(GcHolds.of(pausedAgain, T0 + 2 * HOUR + HOUR / 2)).isEqualTo(new GcHolds.Hold(GcHolds.Phase.HOLDING,
        600, T0 + 3 * HOUR));
    ChangefeedRecord removedClean = ChangefeedRecord.absent("cf");
    assertThat(GcHolds.of(removedClean, T0).phase()).isEqualTo(GcHolds.Phase.NONE);
  }
}
