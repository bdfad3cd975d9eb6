package dev.sluice.broker.cli;

import java.util.Locale;

/**
 * One line of a snapshot's progress for a terminal:
 * {@code [##########----------]  50.0%  1,204,000 of 2,408,000 rows  81,200 rows/s  ETA 15s}. Without an
 * estimate the bar is left out and the rows read are shown alone. Pure.
 *
 * <pre>{@code
 * String line = ProgressBar.line(1_204_000, 2_408_000, 81_200, 15);
 * }</pre>
 */
final class ProgressBar {

  static final int WIDTH = 20;

  private ProgressBar() {}

  /**
   * @param rows       rows done
   * @param estimate   rows expected (pg_class.reltuples), 0 or less when unknown
   * @param perSecond  rows per second, below 0 when unknown
   * @param etaSeconds seconds left, below 0 when unknown
   */
  static String line(long rows, long estimate, double perSecond, long etaSeconds) {
    StringBuilder sb = new StringBuilder();
    if (estimate > 0) {
      double fraction = Math.min(1.0, (double) rows / estimate);
      int filled = (int) Math.round(fraction * WIDTH);
      sb.append('[').append("#".repeat(filled)).append("-".repeat(WIDTH - filled)).append("] ")
          .append(String.format(Locale.ROOT, "%5.1f%%", Math.min(99.9, fraction * 100))).append("  ")
          .append(String.format(Locale.ROOT, "%,d of %,d rows", rows, estimate));
    } else {
      sb.append(String.format(Locale.ROOT, "%,d rows", rows));
    }
    if (perSecond >= 0) {
      sb.append(String.format(Locale.ROOT, "  %,d rows/s", Math.round(perSecond)));
    }
    if (etaSeconds >= 0) {
      sb.append("  ETA ").append(duration(etaSeconds));
    }
    return sb.toString();
  }

  /** {@code 45s}, {@code 3m05s}, {@code 2h07m}. */
  static String duration(long seconds) {
    if (seconds < 60) {
      return seconds + "s";
    }
    if (seconds < 3600) {
      return String.format(Locale.ROOT, "%dm%02ds", seconds / 60, seconds % 60);
    }
    return String.format(Locale.ROOT, "%dh%02dm", seconds / 3600, seconds / 60 % 60);
  }
}
