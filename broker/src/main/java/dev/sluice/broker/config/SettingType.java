package dev.sluice.broker.config;

import dev.sluice.dispatcher.BrokerAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How one kind of setting is written (in the file, an environment variable or a flag), read back and
 * shown: every source gives text, and the same parser reads it, so a value means the same wherever it
 * comes from. A parse error says what was expected and repeats the input; the caller adds the key and
 * the source.
 *
 * <pre>{@code
 * SettingType.DURATION.parse("200ms");      // PT0.2S
 * SettingType.LONG_BYTES.parse("64MiB");    // 67108864
 * SettingType.DURATION.text(Duration.ofSeconds(90));   // "90s"
 * }</pre>
 *
 * @param <T> the Java type of the value
 * @param name   what the docs call it ("integer", "duration", ...)
 * @param parser text to value; throws {@link IllegalArgumentException} naming what it expected
 * @param json   value to what {@code GET /api/v1/config} shows (a number, a boolean or a string)
 * @param text   value to how one writes it (docs, error messages); parses back to the same value
 */
public record SettingType<T>(String name, Function<String, T> parser, Function<T, Object> json,
    Function<T, String> text) {

  private static final Pattern DURATION_TEXT = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");
  private static final Pattern BYTES_TEXT = Pattern.compile("(\\d+)\\s*(B|KiB|MiB|GiB|TiB)?");

  public static final SettingType<String> STRING = new SettingType<>("string", s -> s, s -> s, s -> s);
  public static final SettingType<Integer> INT = new SettingType<>("integer", SettingType::parseInt, i -> i,
      String::valueOf);
  public static final SettingType<Long> LONG = new SettingType<>("integer", SettingType::parseLong, l -> l,
      String::valueOf);
  public static final SettingType<Double> DOUBLE = new SettingType<>("number", SettingType::parseDouble, d -> d,
      String::valueOf);
  public static final SettingType<Boolean> BOOLEAN = new SettingType<>("boolean", SettingType::parseBoolean, b -> b,
      String::valueOf);
  /** A size in bytes: {@code 65536}, {@code 64KiB}, {@code 8MiB}, {@code 1GiB} (binary units). */
  public static final SettingType<Long> LONG_BYTES = new SettingType<>("bytes", SettingType::parseBytes, l -> l,
      SettingType::bytesText);
  /** As {@link #LONG_BYTES}, at most 2 GiB - 1. */
  public static final SettingType<Integer> INT_BYTES = new SettingType<>("bytes", SettingType::parseIntBytes, i -> i,
      i -> bytesText(i.longValue()));
  /** {@code 200ms}, {@code 5s}, {@code 10m}, {@code 1h}, {@code 2d} or ISO-8601 ({@code PT0.2S}). */
  public static final SettingType<Duration> DURATION = new SettingType<>("duration", SettingType::parseDuration,
      SettingType::durationText, SettingType::durationText);
  public static final SettingType<Path> PATH = new SettingType<>("path", SettingType::parsePath, Path::toString,
      Path::toString);
  /** {@code host:port} or {@code [v6]:port}. */
  public static final SettingType<BrokerAddress> ADDRESS = new SettingType<>("host:port", BrokerAddress::parse,
      BrokerAddress::toString, BrokerAddress::toString);

  /** {@code host:port[,host:port...]}; a bare host takes the default cluster port (5701). */
  public static final SettingType<java.util.List<BrokerAddress>> ADDRESSES = new SettingType<>("host:port list",
      SettingType::parseAddresses, SettingType::addressesText, SettingType::addressesText);

  private static java.util.List<BrokerAddress> parseAddresses(String s) {
    java.util.List<BrokerAddress> out = new java.util.ArrayList<>();
    for (String a : s.split(",")) {
      String t = a.trim();
      if (!t.isEmpty()) {
        out.add(t.indexOf(':') < 0 ? new BrokerAddress(t, dev.sluice.broker.cluster.ClusterConfig.DEFAULT_PORT)
            : BrokerAddress.parse(t));
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("must be host:port[,host:port...], got '" + s + "'");
    }
    return java.util.List.copyOf(out);
  }

  private static String addressesText(java.util.List<BrokerAddress> list) {
    return String.join(",", list.stream().map(BrokerAddress::toString).toList());
  }

  /** One of {@code type}'s constants, case-insensitive. */
  public static <E extends Enum<E>> SettingType<E> oneOf(Class<E> type) {
    E[] all = type.getEnumConstants();
    return new SettingType<>("one of " + Arrays.toString(all), s -> {
      for (E e : all) {
        if (e.name().equalsIgnoreCase(s.trim())) {
          return e;
        }
      }
      throw new IllegalArgumentException("must be one of " + Arrays.toString(all) + ", got '" + s + "'");
    }, Enum::name, Enum::name);
  }

  /** Reads {@code text}; a parse error names what was expected and the input. */
  public T parse(String text) {
    return parser.apply(text);
  }

  /** What {@code GET /api/v1/config} shows for {@code value} (null stays null). */
  public Object toJson(Object value) {
    return value == null ? null : json.apply(cast(value));
  }

  /** {@code value} as one would write it in the file (null: empty); parses back to {@code value}. */
  public String text(Object value) {
    return value == null ? "" : text.apply(cast(value));
  }

  @SuppressWarnings("unchecked")
  private T cast(Object value) {
    return (T) value;
  }

  private static int parseInt(String s) {
    long v = parseLong(s);
    if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("must be an integer in [" + Integer.MIN_VALUE + ", " + Integer.MAX_VALUE
          + "], got '" + s + "'");
    }
    return (int) v;
  }

  private static long parseLong(String s) {
    try {
      return Long.parseLong(s.trim().replace("_", ""));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("must be an integer, got '" + s + "'", e);
    }
  }

  private static double parseDouble(String s) {
    try {
      double d = Double.parseDouble(s.trim());
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        throw new NumberFormatException();
      }
      return d;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("must be a number, got '" + s + "'", e);
    }
  }

  private static boolean parseBoolean(String s) {
    return switch (s.trim().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException("must be true or false, got '" + s + "'");
    };
  }

  private static long parseBytes(String s) {
    Matcher m = BYTES_TEXT.matcher(s.trim().replace("_", ""));
    if (!m.matches()) {
      throw new IllegalArgumentException("must be a size in bytes such as 65536, 64KiB, 8MiB or 1GiB, got '" + s + "'");
    }
    int shift = switch (m.group(2) == null ? "B" : m.group(2)) {
      case "KiB" -> 10;
      case "MiB" -> 20;
      case "GiB" -> 30;
      case "TiB" -> 40;
      default -> 0;
    };
    try {
      long n = Long.parseLong(m.group(1));
      if (n > Long.MAX_VALUE >> shift) {
        throw new NumberFormatException();
      }
      return n << shift;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("is too large a size, got '" + s + "'", e);
    }
  }

  /** {@code 8MiB} when a binary unit divides it exactly, else the number of bytes. */
  static String bytesText(long n) {
    String[] units = {"TiB", "GiB", "MiB", "KiB"};
    int[] shifts = {40, 30, 20, 10};
    for (int i = 0; i < units.length; i++) {
      long unit = 1L << shifts[i];
      if (n >= unit && n % unit == 0) {
        return (n >> shifts[i]) + units[i];
      }
    }
    return Long.toString(n);
  }

  private static int parseIntBytes(String s) {
    long v = parseBytes(s);
    if (v > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("must be a size below 2GiB, got '" + s + "'");
    }
    return (int) v;
  }

  private static Duration parseDuration(String s) {
    String t = s.trim();
    Matcher m = DURATION_TEXT.matcher(t);
    try {
      if (m.matches()) {
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
          case "ms" -> Duration.ofMillis(n);
          case "s" -> Duration.ofSeconds(n);
          case "m" -> Duration.ofMinutes(n);
          case "h" -> Duration.ofHours(n);
          default -> Duration.ofDays(n);
        };
      }
      if (t.length() > 1 && (t.charAt(0) == 'P' || t.charAt(0) == 'p')) {
        return Duration.parse(t);
      }
    } catch (NumberFormatException | ArithmeticException | DateTimeParseException e) {
      throw new IllegalArgumentException("must be a duration such as 200ms, 5s, 10m, 1h or PT0.2S, got '" + s + "'", e);
    }
    throw new IllegalArgumentException("must be a duration such as 200ms, 5s, 10m, 1h or PT0.2S, got '" + s + "'");
  }

  /** The shortest exact form among {@code ms, s, m, h, d}; ISO-8601 when none is exact. */
  static String durationText(Duration d) {
    if (d.isNegative() || d.getNano() % 1_000_000 != 0) {
      return d.toString();
    }
    long ms = d.toMillis();
    if (ms == 0 || ms % 1000 != 0) {
      return ms + "ms";
    }
    long s = ms / 1000;
    if (s % 86_400 == 0) {
      return s / 86_400 + "d";
    }
    if (s % 3600 == 0) {
      return s / 3600 + "h";
    }
    if (s % 60 == 0) {
      return s / 60 + "m";
    }
    return s + "s";
  }

  private static Path parsePath(String s) {
    if (s.isBlank()) {
      throw new IllegalArgumentException("must be a path, got an empty value");
    }
    try {
      return Path.of(s.trim());
    } catch (java.nio.file.InvalidPathException e) {
      throw new IllegalArgumentException("must be a path, got '" + s + "': " + e.getReason(), e);
    }
  }
}
