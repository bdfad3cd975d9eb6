package dev.sluice.broker.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine.TypeConversionException;

/** The short forms people type and ISO-8601 both parse; anything else names both. */
class DurationConverterTest {

  @ParameterizedTest(name = "{0} = {1} ms")
  @CsvSource({"500ms, 500", "3s, 3000", "1.5s, 1500", "2m, 120000", "1h30m, 5400000", "1d, 86400000", "0s, 0",
      "PT3S, 3000", "PT0.2S, 200", "pt1m, 60000", "PT0S, 0"})
  void parses(String text, long ms) {
    assertThat(DurationConverter.parse(text)).isEqualTo(Duration.ofMillis(ms));
  }

  @ParameterizedTest
  @ValueSource(strings = {"soon", "3", "3 s", "-3s", "s", "3sec", "PT-3S", "PTXS", ""})
  void refuses(String text) {
    assertThatThrownBy(() -> DurationConverter.parse(text)).isInstanceOf(TypeConversionException.class)
        .hasMessageContaining("'" + text + "'");
  }
}
