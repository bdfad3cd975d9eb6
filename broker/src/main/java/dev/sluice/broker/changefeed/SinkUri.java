package dev.sluice.broker.changefeed;

import dev.sluice.api.secret.Redactor;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Where a hosted changefeed writes, parsed and checked when the changefeed is created or updated so
 * a bad URI is a 400 with the reason, never a FAILED changefeed later.
 *
 * <ul>
 *   <li>{@code jdbc:postgresql://host:port/db?user=u&password=p} — PostgreSQL, exactly once
 *   <li>{@code jdbc:mariadb://host:port/db?user=u&password=p} or {@code jdbc:mysql://...} — exactly once
 *   <li>{@code jsonl:file:orders.jsonl} or {@code jsonl:file:/absolute/path.jsonl} — JSON lines, at least once,
 *       checkpoint in {@code path.checkpoint}; only inside the file sink directory ({@link FileSinkDirectory}), a
 *       relative path is taken there
 *   <li>{@code jsonl:stdout} — JSON lines on the broker's standard output, at least once
 * </ul>
 * Credentials stay in the URI (the JDBC drivers read {@code user} and {@code password} parameters);
 * {@link #redacted()} ({@link Redactor}) is what the API shows.
 *
 * <pre>{@code
 * SinkUri sink = SinkUri.parse("jsonl:file:orders.jsonl");
 * sink.kind();   // JSONL_FILE
 * }</pre>
 *
 * @param kind which sink
 * @param uri  the URI as given
 */
public record SinkUri(Kind kind, String uri) {

  /** The sink kinds. */
  public enum Kind {
    /** {@code JdbcUpsertSink} on PostgreSQL or MySQL/MariaDB. */
    JDBC,
    /** {@code JsonLinesSink} appending to a file. */
    JSONL_FILE,
    /** {@code JsonLinesSink} on the broker's standard output. */
    JSONL_STDOUT
  }

  public SinkUri {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(uri, "uri");
  }

  /**
   * Parses and checks {@code text}.
   *
   * @throws InvalidChangefeedException naming {@code sink_uri} and what is wrong with it
   */
  public static SinkUri parse(String text) {
    if (text == null || text.isBlank()) {
      throw InvalidChangefeedException.field("sink_uri", "is required");
    }
    if (text.startsWith("jdbc:")) {
      return new SinkUri(Kind.JDBC, checkJdbc(text));
    }
    if (text.equals("jsonl:stdout")) {
      return new SinkUri(Kind.JSONL_STDOUT, text);
    }
    if (text.startsWith("jsonl:file:")) {
      String path = text.substring("jsonl:file:".length());
      if (path.isBlank() || path.endsWith("/") || path.contains("\0")) {
        throw InvalidChangefeedException.field("sink_uri", "jsonl:file: needs a file path such as jsonl:file:orders.jsonl"
            + " (in the file sink directory) or an absolute one inside it, got \"" + redact(text) + "\"");
      }
      return new SinkUri(Kind.JSONL_FILE, text);
    }
    throw InvalidChangefeedException.field("sink_uri", "must start with jdbc:postgresql://, jdbc:mariadb://,"
        + " jdbc:mysql://, jsonl:file:/ or be jsonl:stdout; got \"" + redact(text) + "\"");
  }

  private static String checkJdbc(String text) {
    String rest = text.substring("jdbc:".length());
    if (!(rest.startsWith("postgresql://") || rest.startsWith("mariadb://") || rest.startsWith("mysql://"))) {
      throw InvalidChangefeedException.field("sink_uri", "supports jdbc:postgresql://, jdbc:mariadb:// and"
          + " jdbc:mysql:// targets, got \"" + redact(text) + "\"");
    }
    try {
      URI u = new URI(rest);
      if (u.getHost() == null || u.getHost().isBlank()) {
        throw InvalidChangefeedException.field("sink_uri", "needs a host, as in jdbc:postgresql://127.0.0.1:5432/db;"
            + " got \"" + redact(text) + "\"");
      }
      if (u.getPath() == null || u.getPath().length() < 2) {
        throw InvalidChangefeedException.field("sink_uri", "needs a database name after the host, got \""
            + redact(text) + "\"");
      }
    } catch (URISyntaxException e) {
      throw InvalidChangefeedException.field("sink_uri", "is not a valid URI (" + e.getReason() + "): \""
          + redact(text) + "\"");
    }
    return text;
  }

  /** The JDBC URL (for {@link Kind#JDBC}). */
  public String jdbcUrl() {
    return uri;
  }

  /** The JSON lines file (for {@link Kind#JSONL_FILE}); relative as given until {@link FileSinkDirectory#confine}. */
  public Path file() {
    return Path.of(uri.substring("jsonl:file:".length()));
  }

  /** The URI with passwords replaced by {@code ***}: safe to show and log. */
  public String redacted() {
    return redact(uri);
  }

  static String redact(String text) {
    return Redactor.redact(text);
  }

  @Override
  public String toString() {
    return redacted();
  }
}
