package dev.sluice.broker.changefeed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Which file sink paths the file sink directory takes, and where they end up. */
class FileSinkDirectoryTest {

  private final FileSinkDirectory sinks = new FileSinkDirectory(Path.of("/var/lib/sluice/sinks"));

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
      "jsonl:file:orders.jsonl, jsonl:file:/var/lib/sluice/sinks/orders.jsonl",
      "jsonl:file:a/b/orders.jsonl, jsonl:file:/var/lib/sluice/sinks/a/b/orders.jsonl",
      "jsonl:file:./x/../orders.jsonl, jsonl:file:/var/lib/sluice/sinks/orders.jsonl",
      "jsonl:file:/var/lib/sluice/sinks/orders.jsonl, jsonl:file:/var/lib/sluice/sinks/orders.jsonl",
      "jsonl:stdout, jsonl:stdout",
      "jdbc:postgresql://h:5432/db?user=u, jdbc:postgresql://h:5432/db?user=u"})
  void takesPathsInsideTheDirectory(String given, String confined) {
    assertThat(sinks.confine(SinkUri.parse(given)).uri()).isEqualTo(confined);
  }

  @ParameterizedTest
  @ValueSource(strings = {"jsonl:file:/nonexistent/dir/x.jsonl", "jsonl:file:../x.jsonl", "jsonl:file:a/../../x.jsonl",
      "jsonl:file:/var/lib/sluice/sinks", "jsonl:file:/var/lib/sluice/sinks2/x.jsonl", "jsonl:file:/etc/passwd"})
  void refusesPathsOutsideItNamingTheDirectoryAndTheSetting(String given) {
    assertThatThrownBy(() -> sinks.confine(SinkUri.parse(given))).isInstanceOf(InvalidChangefeedException.class)
        .hasMessageContaining("outside the file sink directory /var/lib/sluice/sinks")
        .hasMessageContaining("setting changefeeds.fileSinkDir");
  }

  @Test
  void theDefaultDirectoryIsUnderTheDataDirectory() {
    assertThat(ChangefeedConfig.defaults().resolvedAgainst(Path.of("/data")).fileSinkDir())
        .isEqualTo(Path.of("/data/sinks"));
    assertThat(ChangefeedConfig.defaults().withFileSinkDir(Path.of("/srv/out")).resolvedAgainst(Path.of("/data"))
        .fileSinkDir()).isEqualTo(Path.of("/srv/out"));
    assertThatThrownBy(() -> new FileSinkDirectory(Path.of("sinks"))).hasMessageContaining("fileSinkDir must be"
        + " absolute");
    assertThatThrownBy(() -> ChangefeedConfig.defaults().withSinkCheckTimeout(java.time.Duration.ZERO))
        .hasMessageContaining("sinkCheckTimeout must be positive");
  }
}
