package dev.sluice.broker.cli;

import dev.sluice.dispatcher.SnapshotMark;
import dev.sluice.dispatcher.SnapshotOutcome;
import java.io.PrintWriter;

/**
 * The snapshot progress {@code sluice tail --snapshot} shows on stderr: one {@link ProgressBar} line per
 * chunk at most every half second, drawn over itself on a terminal, then how the snapshot ended. The rate
 * is rows since the first chunk over the time since the command asked. Called from one listener thread.
 */
final class SnapshotProgressLine {

  private static final long REDRAW_NANOS = 500_000_000L;

  private final PrintWriter err;
  private final String table;
  private final boolean terminal;
  private final long startNanos = System.nanoTime();
  private long lastDrawNanos;
  private boolean drawn;

  SnapshotProgressLine(PrintWriter err, String table, boolean terminal) {
    this.err = err;
    this.table = table;
    this.terminal = terminal;
  }

  void chunk(SnapshotMark mark) {
    long now = System.nanoTime();
    if (drawn && now - lastDrawNanos < REDRAW_NANOS) {
      return;
    }
    lastDrawNanos = now;
    double seconds = Math.max(1e-3, (now - startNanos) / 1e9);
    double rate = mark.rowsRead() / seconds;
    long eta = mark.rowsEstimate() > 0 && rate > 0
        ? (long) Math.ceil(Math.max(0, mark.rowsEstimate() - mark.rowsRead()) / rate) : -1;
    String line = "snapshot " + table + " " + ProgressBar.line(mark.rowsRead(), mark.rowsEstimate(), rate, eta);
    err.print(terminal ? "\r" + line + "\u001b[K" : line + System.lineSeparator());
    err.flush();
    drawn = true;
  }

  void ended(SnapshotOutcome outcome) {
    if (terminal && drawn) {
      err.print("\r\u001b[K");
    }
    double seconds = (System.nanoTime() - startNanos) / 1e9;
    err.printf("snapshot %s %s: %,d rows in %,d chunks, %.1f s%s%n", table, outcome.status(), outcome.rowsRead(),
        outcome.chunks(), seconds, outcome.reason().isEmpty() ? "" : " (" + outcome.reason() + ")");
    err.flush();
  }
}
