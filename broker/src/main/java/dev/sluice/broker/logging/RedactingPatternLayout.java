package dev.sluice.broker.logging;

import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.sluice.api.secret.Redactor;

/**
 * Logback's pattern layout with every rendered line, stack trace included, passed through the
 * {@link Redactor}: the last guard for a secret that a third-party library logs or puts into an
 * exception message (Sluice's own errors are redacted when they are made). The broker's
 * {@code logback.xml} and the CLI's stderr logging use it.
 *
 * <pre>{@code
 * <encoder class="ch.qos.logback.core.encoder.LayoutWrappingEncoder">
 *   <layout class="dev.sluice.broker.logging.RedactingPatternLayout"><pattern>%msg %kvp%n</pattern></layout>
 * </encoder>
 * }</pre>
 */
public final class RedactingPatternLayout extends PatternLayout {

  @Override
  public String doLayout(ILoggingEvent event) {
    return Redactor.redact(super.doLayout(event));
  }
}
