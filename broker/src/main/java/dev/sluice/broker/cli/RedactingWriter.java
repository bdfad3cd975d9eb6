package dev.sluice.broker.cli;

import dev.sluice.api.secret.Redactor;
import java.io.PrintWriter;
import java.io.Writer;

/**
 * What a client command prints, line by line through the {@link Redactor} (a password in a
 * {@code --server} URL, in a message the server quoted): the CLI's exit for text, as the admin API's
 * answers and the log layout are the server's.
 *
 * <pre>{@code
 * PrintWriter out = RedactingWriter.around(spec.commandLine().getOut());
 * }</pre>
 */
final class RedactingWriter extends Writer {

  private final PrintWriter target;
  private final StringBuilder line = new StringBuilder();

  private RedactingWriter(PrintWriter target) {
    this.target = target;
  }

  /** A writer that redacts each line before it reaches {@code target}; auto-flushes at each line end. */
  static PrintWriter around(PrintWriter target) {
    return new PrintWriter(new RedactingWriter(target), true);
  }

  @Override
  public void write(char[] chars, int off, int len) {
    for (int i = off; i < off + len; i++) {
      char c = chars[i];
      if (c == '\n') {
        target.write(Redactor.redact(line.toString()));
        target.write('\n');
        line.setLength(0);
      } else {
        line.append(c);
      }
    }
  }

  /** Writes what is pending of an unfinished line, redacted; a secret cut by a flush mid-line could show, so the commands flush at line ends. */
  @Override
  public void flush() {
    if (line.length() > 0) {
      target.write(Redactor.redact(line.toString()));
      line.setLength(0);
    }
    target.flush();
  }

  @Override
  public void close() {
    flush();
  }
}
