package dev.sluice.broker.publication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.schema.TableInfo;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/** Which tables the control plane refuses, by what capture last read of the publication. */
class PublishedTablesTest {

  private static final TableInfo AUDIT = new TableInfo(16410, "Mixed", "Audit \"Log\"", List.of(), List.of(), 1);

  static List<Arguments> reads() {
    return List.of(
        // read, whether REGISTER of AUDIT passes
        Arguments.of("nothing read yet (no upstream)", PublicationMembers.unread(), true),
        Arguments.of("FOR ALL TABLES", PublicationMembers.read("sluice_pub", true, Map.of(), 1), true),
        Arguments.of("FOR TABLE, audit left out", PublicationMembers.read("sluice_pub", false,
            Map.of(16410L, "Mixed.Audit \"Log\""), 1), false),
        Arguments.of("FOR TABLE, another table left out", PublicationMembers.read("sluice_pub", false,
            Map.of(16411L, "public.other"), 1), true),
        Arguments.of("FOR TABLE, created after the read", PublicationMembers.read("sluice_pub", false, Map.of(), 1),
            true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("reads")
  void refusesExactlyTheTablesTheLastReadLeftOut(String what, PublicationMembers read, boolean passes) {
    PublishedTables published = new PublishedTables(new SimpleMeterRegistry());
    published.update(read);
    if (passes) {
      assertThatCode(() -> published.check(AUDIT, "REGISTER")).doesNotThrowAnyException();
    } else {
      assertThatThrownBy(() -> published.check(AUDIT, "REGISTER")).isInstanceOfSatisfying(
          TableNotPublishedException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.TABLE_NOT_PUBLISHED);
            assertThat(e.getMessage()).startsWith("REGISTER of Mixed.Audit \"Log\" refused")
                .contains("ALTER PUBLICATION sluice_pub ADD TABLE \"Mixed\".\"Audit \"\"Log\"\"\"");
          });
    }
  }

  @Test
  void theGaugeCountsTheTablesLeftOutAsOfTheLastRead() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    PublishedTables published = new PublishedTables(registry);
    published.update(PublicationMembers.read("p", false, Map.of(1L, "a.b", 2L, "a.c"), 1));
    assertThat(registry.get("sluice.capture.publication.unpublished").gauge().value()).isEqualTo(2);
    published.update(PublicationMembers.read("p", false, Map.of(2L, "a.c"), 2));
    assertThat(registry.get("sluice.capture.publication.unpublished").gauge().value()).isEqualTo(1);
    assertThat(published.current().publishes(1L)).isTrue();
  }

  @Test
  void aForAllTablesReadCannotLeaveATableOut() {
    assertThatThrownBy(() -> PublicationMembers.read("p", true, Map.of(1L, "a.b"), 1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
