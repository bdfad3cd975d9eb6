package dev.sluice.it.scenario;

/**
 * The integration suite's two tiers: {@code quick} (default; part of {@code make test}: every scenario
 * in a shortened form) and {@code full} ({@code make it}, {@code -Dit.tier=full}: the sizes).
 *
 * <pre>{@code
 * int cuts = Tier.pick(3, 20);
 * }</pre>
 */
final class Tier {

  private Tier() {}

  static boolean full() {
    return "full".equals(System.getProperty("it.tier", "quick"));
  }

  static <T> T pick(T quick, T full) {
    return full() ? full : quick;
  }

  static int pick(int quick, int full) {
    return full() ? full : quick;
  }
}
