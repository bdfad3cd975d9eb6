package dev.sluice.it.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time of processes on this machine (Linux {@code /proc/<pid>/stat}: user + system), to say which
 * side of a benchmark used the cores.
 *
 * <pre>{@code
 * double before = ProcessCpu.seconds(broker.pid());
 * }</pre>
 */
final class ProcessCpu {

  private static final double TICKS_PER_SECOND = 100;   // USER_HZ on Linux

  private ProcessCpu() {}

  /** CPU seconds used so far by process {@code pid} (all threads), or NaN when unreadable. */
  static double seconds(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS_PER_SECOND;   // utime, stime (fields 14, 15)
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
  }

  /** CPU seconds used so far by this JVM. */
  static double self() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime() / 1e9;
  }
}
