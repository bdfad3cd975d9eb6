package dev.sluice.broker.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** The broker's log layout masks secrets in messages, key-values and stack traces of third-party errors. */
class RedactingPatternLayoutTest {

  @Test
  void aLineWithASecretInItsMessageValuesAndCausesIsMasked() {
    LoggerContext context = new LoggerContext();
    RedactingPatternLayout layout = new RedactingPatternLayout();
    layout.setContext(context);
    layout.setPattern("%msg %kvp%n");
    layout.start();
    Logger logger = context.getLogger("x");
    SQLException driver = new SQLException("No suitable driver found for jdbc:mysql://db/app?password=hunter22");
    LoggingEvent event = new LoggingEvent("x", logger, Level.WARN, "opening {} failed",
        new RuntimeException("wrapped", driver), new Object[] {"jdbc:mariadb://u:hunter22@db/app"});
    event.addKeyValuePair(new org.slf4j.event.KeyValuePair("sink", "jdbc:postgresql://db/x?password=hunter22"));
    String line = layout.doLayout(event);
    assertThat(line).doesNotContain("hunter22").contains("jdbc:mariadb://u:***@db/app")
        .contains("password=***").contains("java.sql.SQLException");
  }
}
