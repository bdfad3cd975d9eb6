package dev.sluice.it.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Watches the machine while a latency benchmark runs, to tell what a latency spike coincided with:
 * every 50 ms a thread (a) times an fsync of 4 KiB in the benchmark's folder (the disk the broker's
 * group commit syncs to) and (b) measures how late it woke up from a 50 ms sleep (CPU starvation).
 * Samples carry wall-clock millis so they can be matched with latency samples.
 *
 * <pre>{@code
 * try (StallProbe probe = StallProbe.start(dir)) {
 *   ... measure ...
 *   double share = probe.coincidingShare(spikeTimesMillis, 50, 200);
 * }
 * }</pre>
 */
final class StallProbe implements AutoCloseable {

  /** One probe sample: when, how long the fsync took, how late the sleep ended (ms). */
  record Sample(long atMillis, double fsyncMs, double lateMs) {}

  private final List<Sample> samples = new ArrayList<>();
  private final Thread thread;
  private volatile boolean running = true;

  private StallProbe(Path dir) {
    thread = new Thread(() -> run(dir.resolve("stall-probe.dat")), "stall-probe");
    thread.setDaemon(true);
    thread.start();
  }

  static StallProbe start(Path dir) {
    return new StallProbe(dir);
  }

  private void run(Path file) {
    ByteBuffer page = ByteBuffer.allocate(4096);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      while (running) {
        long t0 = System.nanoTime();
        page.clear();
        ch.write(page, 0);
        ch.force(false);
        long t1 = System.nanoTime();
        TimeUnit.MILLISECONDS.sleep(50);   // the probe's own period; its oversleep is what it measures
        long t2 = System.nanoTime();
        synchronized (samples) {
          samples.add(new Sample(System.currentTimeMillis(), (t1 - t0) / 1e6, Math.max(0, (t2 - t1) / 1e6 - 50)));
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Highest fsync time and highest oversleep seen, ms. */
  double[] worst() {
    synchronized (samples) {
      return new double[] {samples.stream().mapToDouble(Sample::fsyncMs).max().orElse(0),
          samples.stream().mapToDouble(Sample::lateMs).max().orElse(0)};
    }
  }

  /**
   * Of the given spike times (the moments slow transactions arrived, ms), the share within
   * {@code windowMs} before which the probe saw an fsync slower than {@code thresholdMs} (index 0) or a
   * wake-up later than {@code thresholdMs} (index 1).
   */
  double[] coincidingShare(List<long[]> spikes, double thresholdMs, long windowMs) {
    List<Sample> copy;
    synchronized (samples) {
      copy = List.copyOf(samples);
    }
    int disk = 0;
    int cpu = 0;
    for (long[] s : spikes) {
      long arrived = s[0];
      long committed = arrived - s[1];
      boolean d = false;
      boolean c = false;
      for (Sample p : copy) {
        if (p.atMillis() >= committed - windowMs && p.atMillis() <= arrived + windowMs) {
          d |= p.fsyncMs() > thresholdMs;
          c |= p.lateMs() > thresholdMs;
        }
      }
      disk += d ? 1 : 0;
      cpu += c ? 1 : 0;
    }
    return spikes.isEmpty() ? new double[] {0, 0} : new double[] {disk / (double) spikes.size(), cpu / (double) spikes.size()};
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
  }
}
