package dev.sluice.it.bench;

import java.util.Arrays;
import java.util.List;

/** Order statistics of measured samples. */
final class Stats {

  private Stats() {}

  static double median(List<Double> values) {
    return percentile(values.stream().mapToDouble(Double::doubleValue).toArray(), 50);
  }

  /** The p-th percentile (nearest rank) of the values. */
  static double percentile(double[] values, double p) {
    if (values.length == 0) {
      return Double.NaN;
    }
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  static double percentileNanosToMs(long[] nanos, double p) {
    double[] ms = new double[nanos.length];
    for (int i = 0; i < nanos.length; i++) {
      ms[i] = nanos[i] / 1e6;
    }
    return percentile(ms, p);
  }
}
