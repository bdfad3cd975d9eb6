package dev.sluice.broker.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every source's text goes through one parser per type; what it shows parses back to the same value. */
class SettingTypeTest {

  static Stream<Arguments> accepted() {
    return Stream.of(
        Arguments.of("millis", SettingType.DURATION, "200ms", Duration.ofMillis(200)),
        Arguments.of("seconds", SettingType.DURATION, "5s", Duration.ofSeconds(5)),
        Arguments.of("minutes", SettingType.DURATION, "10m", Duration.ofMinutes(10)),
        Arguments.of("hours", SettingType.DURATION, "1h", Duration.ofHours(1)),
        Arguments.of("days", SettingType.DURATION, "2d", Duration.ofDays(2)),
        Arguments.of("ISO-8601", SettingType.DURATION, "PT0.2S", Duration.ofMillis(200)),
        Arguments.of("plain bytes", SettingType.LONG_BYTES, "65536", 65536L),
        Arguments.of("KiB", SettingType.LONG_BYTES, "64KiB", 64L << 10),
        Arguments.of("MiB with a space", SettingType.LONG_BYTES, "8 MiB", 8L << 20),
        Arguments.of("GiB", SettingType.LONG_BYTES, "1GiB", 1L << 30),
        Arguments.of("int bytes", SettingType.INT_BYTES, "4MiB", 4 << 20),
        Arguments.of("underscores", SettingType.INT, "10_000", 10_000),
        Arguments.of("boolean any case", SettingType.BOOLEAN, "TRUE", true),
        Arguments.of("enum any case", SettingType.oneOf(java.time.DayOfWeek.class), "monday", java.time.DayOfWeek.MONDAY),
        Arguments.of("address", SettingType.ADDRESS, "[fd00::1]:8300", dev.sluice.dispatcher.BrokerAddress.parse("[fd00::1]:8300")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("accepted")
  void acceptedTextParsesAndItsTextParsesBack(String name, SettingType<?> type, String text, Object expected) {
    Object v = type.parse(text);
    assertThat(v).isEqualTo(expected);
    assertThat((Object) type.parse(type.text(v))).isEqualTo(expected);
  }

  static Stream<Arguments> refused() {
    return Stream.of(
        Arguments.of("a duration without a unit", SettingType.DURATION, "200", "must be a duration such as 200ms"),
        Arguments.of("an unknown duration unit", SettingType.DURATION, "1x", "got '1x'"),
        Arguments.of("a decimal size", SettingType.LONG_BYTES, "1.5GiB", "must be a size in bytes"),
        Arguments.of("decimal units", SettingType.LONG_BYTES, "8MB", "must be a size in bytes such as 65536, 64KiB"),
        Arguments.of("int bytes over 2 GiB", SettingType.INT_BYTES, "2GiB", "must be a size below 2GiB"),
        Arguments.of("a word as integer", SettingType.INT, "ten", "must be an integer, got 'ten'"),
        Arguments.of("an integer past int", SettingType.INT, "3000000000", "must be an integer in"),
        Arguments.of("yes as boolean", SettingType.BOOLEAN, "yes", "must be true or false, got 'yes'"),
        Arguments.of("an unknown constant", SettingType.oneOf(java.time.DayOfWeek.class), "someday", "must be one of"),
        Arguments.of("an address without port", SettingType.ADDRESS, "b1.example", "must be host:port"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refused")
  void refusedTextNamesWhatWasExpectedAndTheInput(String name, SettingType<?> type, String text, String message) {
    assertThatThrownBy(() -> type.parse(text)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
  }

  @Property
  void everyDurationShownParsesBackExactly(@ForAll @LongRange(min = 0, max = 10L * 86_400_000) long ms) {
    Duration d = Duration.ofMillis(ms);
    assertThat(SettingType.DURATION.parse(SettingType.DURATION.text(d))).isEqualTo(d);
  }

  @Property
  void everySizeShownParsesBackExactly(@ForAll @LongRange(min = 0, max = 1L << 50) long n) {
    assertThat(SettingType.LONG_BYTES.parse(SettingType.LONG_BYTES.text(n))).isEqualTo(n);
  }
}
