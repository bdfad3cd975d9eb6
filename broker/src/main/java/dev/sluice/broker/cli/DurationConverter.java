package dev.sluice.broker.cli;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Durations on the command line: ISO-8601 ({@code PT15S}, {@code PT0.5S}) or the short form people
 * type, one or more number-unit pairs with units {@code ms}, {@code s}, {@code m}, {@code h} and
 * {@code d} ({@code 500ms}, {@code 3s}, {@code 1.5s}, {@code 2m}, {@code 1h30m}). Anything else is a
 * usage error naming both forms.
 *
 * <pre>{@code
 * @Option(names = "--wait", converter = DurationConverter.class) Duration wait;   // --wait 30s
 * }</pre>
 */
public final class DurationConverter implements ITypeConverter<Duration> {

  private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h|d)");
  private static final Pattern WHOLE = Pattern.compile("(?:\\d+(?:\\.\\d+)?(?:ms|s|m|h|d))+");

  @Override
  public Duration convert(String value) {
    return parse(value);
  }

  /** {@code value} as a duration; throws {@link TypeConversionException} saying which forms are accepted. */
  public static Duration parse(String value) {
    String v = value == null ? "" : value.strip();
    if (v.regionMatches(true, 0, "P", 0, 1)) {
      try {
        return nonNegative(value, Duration.parse(v));
      } catch (DateTimeParseException e) {
        throw invalid(value);
      }
    }
    if (!WHOLE.matcher(v).matches()) {
      throw invalid(value);
    }
    Matcher m = PART.matcher(v);
    BigDecimal nanos = BigDecimal.ZERO;
    while (m.find()) {
      long unit = switch (m.group(2)) {
        case "ms" -> 1_000_000L;
        case "s" -> 1_000_000_000L;
        case "m" -> 60_000_000_000L;
        case "h" -> 3_600_000_000_000L;
        default -> 86_400_000_000_000L;
      };
      nanos = nanos.add(new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(unit)));
    }
    try {
      return Duration.ofNanos(nanos.longValueExact());
    } catch (ArithmeticException e) {
      throw new TypeConversionException("'" + value + "' is too long a duration");
    }
  }

  private static Duration nonNegative(String value, Duration d) {
    if (d.isNegative()) {
      throw new TypeConversionException("'" + value + "' is negative; give a duration of 0 or more");
    }
    return d;
  }

  private static TypeConversionException invalid(String value) {
    return new TypeConversionException("'" + value + "' is not a duration: give 500ms, 3s, 1.5s, 2m, 1h30m or ISO-8601"
        + " such as PT3S");
  }
}
