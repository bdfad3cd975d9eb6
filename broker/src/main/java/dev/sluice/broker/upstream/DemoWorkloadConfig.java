package dev.sluice.broker.upstream;

import java.time.Duration;
import java.util.Objects;

/**
 * The demo workload's pace.
 *
 * <pre>{@code
 * DemoWorkloadConfig c = DemoWorkloadConfig.defaults();       // ~50 tx/s, a schema change a minute
 * }</pre>
 *
 * @param txnsPerSecond transactions per second (default {@value #DEFAULT_TXNS_PER_SECOND})
 * @param ddlInterval   time between schema changes of {@code demo.orders} (default 60 s)
 * @param seed          seed of the random mix, so a run can be repeated
 */
public record DemoWorkloadConfig(double txnsPerSecond, Duration ddlInterval, long seed) {

  public static final double DEFAULT_TXNS_PER_SECOND = 50;
  public static final Duration DEFAULT_DDL_INTERVAL = Duration.ofSeconds(60);
  public static final long DEFAULT_SEED = 42;

  public DemoWorkloadConfig {
    if (!(txnsPerSecond > 0 && txnsPerSecond <= 10_000)) {
      throw new IllegalArgumentException("txnsPerSecond must be in (0, 10000], got " + txnsPerSecond);
    }
    Objects.requireNonNull(ddlInterval, "ddlInterval");
    if (ddlInterval.isNegative() || ddlInterval.isZero()) {
      throw new IllegalArgumentException("ddlInterval must be > 0, got " + ddlInterval);
    }
  }

  public static DemoWorkloadConfig defaults() {
    return new DemoWorkloadConfig(DEFAULT_TXNS_PER_SECOND, DEFAULT_DDL_INTERVAL, DEFAULT_SEED);
  }
}
