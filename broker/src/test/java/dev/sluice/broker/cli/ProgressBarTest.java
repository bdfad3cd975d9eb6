package dev.sluice.broker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The progress line a terminal shows for a snapshot. */
class ProgressBarTest {

  @ParameterizedTest(name = "{0} of {1} at {2}/s, ETA {3}: {4}")
  @CsvSource(delimiter = '|', textBlock = """
      0       | 1000 | -1    | -1 | [--------------------]   0.0%  0 of 1,000 rows
      500     | 1000 | 250   | 2  | [##########----------]  50.0%  500 of 1,000 rows  250 rows/s  ETA 2s
      1200    | 1000 | 100   | 0  | [####################]  99.9%  1,200 of 1,000 rows  100 rows/s  ETA 0s
      42      | 0    | 10.4  | -1 | 42 rows  10 rows/s
      1       | 3    | -1    | 185| [#######-------------]  33.3%  1 of 3 rows  ETA 3m05s
      """)
  void rendersRowsEstimateRateAndEta(long rows, long estimate, double rate, long eta, String expected) {
    assertThat(ProgressBar.line(rows, estimate, rate, eta)).isEqualTo(expected);
  }

  @ParameterizedTest
  @CsvSource({"59, 59s", "60, 1m00s", "3599, 59m59s", "7620, 2h07m"})
  void durationsAreShort(long seconds, String text) {
    assertThat(ProgressBar.duration(seconds)).isEqualTo(text);
  }
}
