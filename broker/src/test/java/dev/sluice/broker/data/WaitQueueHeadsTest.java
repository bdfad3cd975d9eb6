package dev.sluice.broker.data;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class WaitQueueHeadsTest {

  @Test
  void nobodyWaitingIsMinusOne() {
    assertThat(new WaitQueueHeads(3).longest()).isEqualTo(-1);
  }

  @Test
  void theInstanceWhoseHeadWasParkedFirstIsLongest() {
    WaitQueueHeads heads = new WaitQueueHeads(3);
    heads.publish(0, 500);
    heads.publish(2, 200);
    assertThat(heads.longest()).isEqualTo(2);
    heads.publish(2, WaitQueueHeads.NONE);   // its queue emptied
    assertThat(heads.longest()).isZero();
  }

  @Test
  void parkTimesAreComparedAcrossANanoTimeWrap() {
    WaitQueueHeads heads = new WaitQueueHeads(2);
    heads.publish(0, Long.MIN_VALUE + 10);   // after the wrap
    heads.publish(1, Long.MAX_VALUE - 10);   // before it: waited longer
    assertThat(heads.longest()).isEqualTo(1);
  }

  @Test
  void wakeRunsTheAttachedWaker() {
    WaitQueueHeads heads = new WaitQueueHeads(2);
    List<Integer> woken = new ArrayList<>();
    heads.attach(0, () -> woken.add(0));
    heads.attach(1, () -> woken.add(1));
    heads.wake(1);
    assertThat(woken).containsExactly(1);
  }
}
