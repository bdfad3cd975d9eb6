package dev.sluice.broker.data;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lowers the OS priority (raises the niceness) of each scan thread once, the first time it runs a scan.
 * Catch-up scans can keep every core busy; at a lower priority they yield the CPU at once to the
 * control plane and the event loops, which is what keeps Ready and Handshake fast under load (measured
 * in docs/BENCHMARKS.md). Java has no per-thread niceness, so on Linux the thread finds its own id in
 * {@code /proc/thread-self} and runs {@code renice} on it; raising one's own niceness needs no privilege.
 * Elsewhere, or if that fails, scans run at normal priority and a warning says so once.
 *
 * <pre>{@code
 * ScanThreadPriority priority = new ScanThreadPriority(10);
 * executor.execute(() -> { priority.applyToCurrentThread(); scan(); });
 * }</pre>
 */
public final class ScanThreadPriority {

  private static final Logger log = LoggerFactory.getLogger(ScanThreadPriority.class);
  private static final Path THREAD_SELF = Path.of("/proc/thread-self");
  /** Shared by all instances: the scan pool is shared by the data-plane verticles. */
  private static final ThreadLocal<Boolean> APPLIED = ThreadLocal.withInitial(() -> false);
  private static final AtomicBoolean WARNED = new AtomicBoolean();

  private final int nice;

  /** @param nice 0 (leave threads alone) to 19 */
  public ScanThreadPriority(int nice) {
    if (nice < 0 || nice > 19) {
      throw new IllegalArgumentException("nice must be in [0, 19], got " + nice);
    }
    this.nice = nice;
  }

  /** Renices the calling thread unless it was done before (or nice is 0); never throws. */
  public void applyToCurrentThread() {
    if (nice == 0 || APPLIED.get()) {
      return;
    }
    APPLIED.set(true);
    String tid = null;
    try {
      tid = Files.readSymbolicLink(THREAD_SELF).getFileName().toString();   // "<pid>/task/<tid>"
      Process p = new ProcessBuilder("renice", "-n", Integer.toString(nice), "-p", tid)
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      if (!p.waitFor(5, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        warnOnce(tid, "renice exited with " + (p.isAlive() ? "a timeout" : "status " + p.exitValue()));
      }
    } catch (IOException | UnsupportedOperationException e) {
      warnOnce(tid, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void warnOnce(String tid, String why) {
    if (WARNED.compareAndSet(false, true)) {
      log.atWarn().addKeyValue("thread", Thread.currentThread().getName()).addKeyValue("tid", tid)
          .addKeyValue("nice", nice).log("scan threads keep normal priority (control may wait behind scans): {}", why);
    }
  }
}
