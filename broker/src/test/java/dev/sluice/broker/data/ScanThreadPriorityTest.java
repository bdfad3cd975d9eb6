package dev.sluice.broker.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The niceness a scan thread ends up with, read back from the kernel ({@code /proc/thread-self/stat}). */
class ScanThreadPriorityTest {

  /** Field 19 of stat, counted after the parenthesised command name (which may hold spaces). */
  private static int currentNice() throws Exception {
    String stat = Files.readString(Path.of("/proc/thread-self/stat"));
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Integer.parseInt(fields[19 - 3]);
  }

  private static int niceAfter(ScanThreadPriority priority, int applications) throws Exception {
    CompletableFuture<Integer> nice = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        for (int i = 0; i < applications; i++) {
          priority.applyToCurrentThread();
        }
        nice.complete(currentNice());
      } catch (Exception e) {
        nice.completeExceptionally(e);
      }
    }, "scan-priority-test");
    t.start();
    return nice.get(30, TimeUnit.SECONDS);
  }

  @Test
  void aScanThreadRunsAtTheConfiguredNiceness() throws Exception {
    assumeTrue(Files.exists(Path.of("/proc/thread-self/stat")), "Linux only");
    assertThat(niceAfter(new ScanThreadPriority(7), 1)).isEqualTo(7);
    assertThat(niceAfter(new ScanThreadPriority(7), 3)).as("applied once, not added up").isEqualTo(7);
  }

  @Test
  void zeroLeavesTheThreadAlone() throws Exception {
    assumeTrue(Files.exists(Path.of("/proc/thread-self/stat")), "Linux only");
    assertThat(niceAfter(new ScanThreadPriority(0), 1)).isZero();
  }

  @Test
  void aNicenessTheOsWouldRefuseIsRejected() {
    assertThatThrownBy(() -> new ScanThreadPriority(20)).hasMessageContaining("nice must be in [0, 19], got 20");
  }
}
