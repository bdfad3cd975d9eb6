package dev.sluice.it.bench;

import io.vertx.core.json.JsonObject;

/**
 * One benchmark figure as {@code docs/benchmarks.json} records it.
 *
 * @param id        stable short name (e.g. {@code fanout_rows_per_s_100})
 * @param title     what was measured, in words
 * @param value     the median over {@code runs}
 * @param unit      unit of value and target
 * @param target    the target, or NaN when none
 * @param higherIsBetter whether meeting the target means value >= target (else value <= target)
 * @param peerValue a peer measured in the same run, or NaN
 * @param runs      how many runs the median is over
 * @param detail    how it was measured and what limited it
 */
record Figure(String id, String title, double value, String unit, double target, boolean higherIsBetter,
    double peerValue, int runs, String detail) {

  boolean meets() {
    if (Double.isNaN(target)) {
      return true;
    }
    return higherIsBetter ? value >= target : value <= target;
  }

  JsonObject toJson(String commit, String mode) {
    JsonObject o = new JsonObject().put("id", id).put("title", title).put("value", round(value)).put("unit", unit)
        .put("meets", meets()).put("runs", runs).put("commit", commit).put("mode", mode).put("detail", detail);
    if (!Double.isNaN(target)) {
      o.put("target", target).put("target_direction", higherIsBetter ? ">=" : "<=");
    }
    if (!Double.isNaN(peerValue)) {
      o.put("peer_value", round(peerValue));
    }
    return o;
  }

  static double round(double v) {
    return Math.abs(v) >= 100 ? Math.round(v) : Math.round(v * 1000) / 1000.0;
  }
}
