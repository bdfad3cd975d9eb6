package dev.sluice.dispatcher;

import dev.sluice.api.v1.Timestamp;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * PostgreSQL's special timestamps on the wire (value.proto's {@code Timestamp}): 'infinity' and '-infinity'
 * ({@code special} set, {@code micros} at int64 max or min), and finite values past int64 max microseconds
 * ({@code micros} at int64 max, the rest in {@code micros_past_max}). One place that knows the encoding.
 */
final class TimestampSpecials {

  private TimestampSpecials() {}

  /** Whether {@code ts} is not a finite point in time; int64 max micros with no special set is finite. */
  static boolean isSpecial(Timestamp ts) {
    return ts.getSpecial() != dev.sluice.api.v1.TimeSpecial.TIME_SPECIAL_NONE;
  }

  /** PostgreSQL's text for a special value ('infinity', '-infinity'); a newer special by its number. */
  static String name(Timestamp ts) {
    return switch (ts.getSpecial()) {
      case TIME_SPECIAL_INFINITY -> "infinity";
      case TIME_SPECIAL_MINUS_INFINITY -> "-infinity";
      case TIME_SPECIAL_NONE -> "finite";
      case UNRECOGNIZED -> "special value " + ts.getSpecialValue();
    };
  }

  /** Microseconds past int64 max micros for a finite value beyond it, else 0. */
  static long microsPastMax(Timestamp ts) {
    return ts.getMicros() == Long.MAX_VALUE ? ts.getMicrosPastMax() : 0;
  }

  /** The instant of a finite {@code ts} (its UTC wall clock when without zone), past int64 max micros included. */
  static Instant instantOf(Timestamp ts) {
    // proleptic Gregorian micros, BC included (year 0 is 1 BC), like java.time
    Instant base = Instant.EPOCH.plus(ts.getMicros(), ChronoUnit.MICROS);
    long past = microsPastMax(ts);
    return past == 0 ? base : base.plus(past, ChronoUnit.MICROS);
  }
}
