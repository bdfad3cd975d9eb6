package dev.sluice.it.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * What an fsync costs on a filesystem while a benchmark runs: every 10 ms it appends 100 bytes to a file and
 * forces it, as the broker's capture does for each group of transactions before their events may go out. A
 * live transaction cannot reach a listener faster than the broker's fsync returns, so this is the ceiling a
 * live latency figure is held against when other processes (a downstream database taking a snapshot's COPY)
 * write to the same disk.
 *
 * <pre>{@code
 * try (FsyncProbe fsync = FsyncProbe.start(brokerDir)) {
 *   ...
 *   double p99 = fsync.percentileMs(99);
 * }
 * }</pre>
 */
final class FsyncProbe implements AutoCloseable {

  private static final long INTERVAL_NANOS = 10_000_000L;

  private final FileChannel channel;
  private final Path file;
  private final ConcurrentLinkedQueue<Long> nanos = new ConcurrentLinkedQueue<>();
  private final Thread thread;
  private volatile boolean running = true;

  private FsyncProbe(Path dir) throws IOException {
    file = Files.createTempFile(dir, "fsync-probe", ".bin");
    channel = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    thread = new Thread(this::loop, "fsync-probe");
    thread.setDaemon(true);
  }

  /** Starts forcing a file in {@code dir} (on the filesystem to measure). */
  static FsyncProbe start(Path dir) {
    try {
      FsyncProbe p = new FsyncProbe(dir);
      p.thread.start();
      return p;
    } catch (IOException e) {
      throw new UncheckedIOException("could not start the fsync probe in " + dir, e);
    }
  }

  private void loop() {
    ByteBuffer record = ByteBuffer.allocate(100);
    while (running) {
      long t0 = System.nanoTime();
      try {
        record.clear();
        channel.write(record);
        channel.force(false);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      nanos.add(System.nanoTime() - t0);
      LockSupport.parkNanos(INTERVAL_NANOS);   // a steady probe, not a wait for anything
    }
  }

  /** Forgets what was measured so far. */
  void reset() {
    nanos.clear();
  }

  /** The {@code p}th percentile of the fsyncs so far, ms. */
  double percentileMs(double p) {
    return Stats.percentileNanosToMs(nanos.stream().mapToLong(Long::longValue).toArray(), p);
  }

  /** The longest fsync so far, ms. */
  double maxMs() {
    return nanos.stream().mapToLong(Long::longValue).max().orElse(0) / 1e6;
  }

  @Override
  public void close() throws Exception {
    running = false;
    thread.join(5_000);
    channel.close();
    Files.deleteIfExists(file);
  }
}
