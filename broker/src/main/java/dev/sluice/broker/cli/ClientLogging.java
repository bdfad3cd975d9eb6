package dev.sluice.broker.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import dev.sluice.broker.logging.RedactingPatternLayout;
import org.slf4j.LoggerFactory;

/**
 * Client commands print their results on stdout (JSON lines for {@code tail}): their log goes to
 * stderr, warnings and errors only, so {@code sluice tail ... | jq} sees nothing but changes; lines pass the
 * redactor ({@link RedactingPatternLayout}).
 */
final class ClientLogging {

  private ClientLogging() {}

  /**
   * Sends every log event of WARN and above to stderr, and nothing to stdout; {@code quiet} loggers
   * only from ERROR (their warnings repeat what the command prints itself).
   */
  static void warningsToStderr(String... quiet) {
    if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
      return;   // another SLF4J binding: leave its configuration alone
    }
    Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.detachAndStopAllAppenders();
    RedactingPatternLayout layout = new RedactingPatternLayout();
    layout.setContext(context);
    layout.setPattern("%d{HH:mm:ss.SSS} %-5level %logger{30} - %msg %kvp%n");
    layout.start();
    LayoutWrappingEncoder<ILoggingEvent> encoder = new LayoutWrappingEncoder<>();
    encoder.setContext(context);
    encoder.setLayout(layout);
    encoder.start();
    ConsoleAppender<ILoggingEvent> err = new ConsoleAppender<>();
    err.setContext(context);
    err.setTarget("System.err");
    err.setEncoder(encoder);
    err.start();
    root.addAppender(err);
    root.setLevel(Level.WARN);
    context.getLogger("dev.sluice").setLevel(Level.WARN);
    for (String name : quiet) {
      context.getLogger(name).setLevel(Level.ERROR);
    }
  }
}
