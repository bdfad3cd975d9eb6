package dev.sluice.broker.changefeed;

import dev.sluice.api.secret.Redactor;
import dev.sluice.dispatcher.sink.JdbcSinkConfig;
import dev.sluice.dispatcher.sink.JdbcTarget;
import dev.sluice.dispatcher.sink.JdbcUpsertSink;
import dev.sluice.dispatcher.sink.JsonLinesSink;
import dev.sluice.dispatcher.sink.Sink;
import dev.sluice.dispatcher.sink.SinkUnavailableException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Set;

/**
 * The sinks of the dispatcher library, opened from a {@link SinkUri}: {@link JdbcUpsertSink} (with the
 * options' target schema, batch size and table creation) and {@link JsonLinesSink}.
 *
 * <pre>{@code
 * SinkConnector sinks = new StandardSinkConnector(System.out);
 * }</pre>
 */
public final class StandardSinkConnector implements SinkConnector {

  private static final int STATEMENT_TIMEOUT_S = 30;

  private final PrintStream stdout;

  /** {@code stdout} is where {@code jsonl:stdout} sinks write. */
  public StandardSinkConnector(PrintStream stdout) {
    this.stdout = stdout;
  }

  @Override
  public Sink open(SinkUri uri, String changefeedId, ChangefeedOptions options, long fenceToken) {
    return switch (uri.kind()) {
      case JDBC -> JdbcUpsertSink.open(new JdbcSinkConfig(uri.jdbcUrl(), null, null, changefeedId,
          options.targetSchema(), options.batchSize(), options.createTables(), null, fenceToken));
      case JSONL_FILE -> JsonLinesSink.toFile(uri.file(), changefeedId);
      case JSONL_STDOUT -> JsonLinesSink.toStream(new UnclosableStream(stdout), null, changefeedId);
    };
  }

  @Override
  public void check(SinkUri uri, ChangefeedOptions options, Duration timeout) {
    switch (uri.kind()) {
      case JDBC -> {
        try {
          JdbcTarget.check(uri.jdbcUrl(), null, null, timeout);
        } catch (SQLException e) {
          Set<String> secrets = Redactor.secretsIn(uri.uri());   // a driver may echo the password its own way
          throw new SinkCheckFailedException(uri, Redactor.redact(e.getMessage(), secrets) + " (SQL state "
              + e.getSQLState() + ")", Redactor.scrub(e, secrets));
        }
      }
      case JSONL_FILE -> checkFile(uri);
      case JSONL_STDOUT -> {
        // the broker's own stdout: nothing that can fail now
      }
    }
  }

  private static void checkFile(SinkUri uri) {
    Path file = uri.file();
    Path parent = file.toAbsolutePath().getParent();
    try {
      Files.createDirectories(parent);
    } catch (IOException e) {
      throw new SinkCheckFailedException(uri, "cannot create the directory " + parent + ": " + e, e);
    }
    if (Files.exists(file) && !Files.isRegularFile(file)) {
      throw new SinkCheckFailedException(uri, file + " exists and is not a regular file", null);
    }
    if (Files.exists(file) ? !Files.isWritable(file) : !Files.isWritable(parent)) {
      throw new SinkCheckFailedException(uri, (Files.exists(file) ? file : parent) + " is not writable by the"
          + " server's user", null);
    }
  }

  @Override
  public void dropCheckpoint(SinkUri uri, String changefeedId) {
    switch (uri.kind()) {
      case JDBC -> dropJdbcCheckpoint(uri, changefeedId);
      case JSONL_FILE -> {
        Path side = uri.file().resolveSibling(uri.file().getFileName() + ".checkpoint");
        try {
          Files.deleteIfExists(side);
        } catch (IOException e) {
          throw new SinkUnavailableException("cannot delete the checkpoint file " + side + " of changefeed \""
              + changefeedId + "\": " + e.getMessage(), e);
        }
      }
      case JSONL_STDOUT -> {
        // nothing durable: the server's record was the only checkpoint
      }
    }
  }

  private static void dropJdbcCheckpoint(SinkUri uri, String changefeedId) {
    try (Connection c = JdbcTarget.connect(uri.jdbcUrl(), null, null)) {
      // one statement per table in autocommit: each is idempotent, so a failure in between is retried whole
      // unqualified: the sink keeps these tables in the connection's default schema, as resolved here
      for (String table : new String[] {JdbcSinkConfig.TABLE_CHECKPOINT_TABLE, JdbcSinkConfig.CHECKPOINT_TABLE}) {
        try (PreparedStatement s = c.prepareStatement("DELETE FROM " + table + " WHERE changefeed_id = ?")) {
          s.setQueryTimeout(STATEMENT_TIMEOUT_S);
          s.setString(1, changefeedId);
          s.executeUpdate();
        } catch (SQLException e) {
          if (!isMissingTable(e)) {
            throw e;
          }
        }
      }
    } catch (SQLException e) {
      Set<String> secrets = Redactor.secretsIn(uri.uri());
      throw new SinkUnavailableException("cannot remove the checkpoint of changefeed \"" + changefeedId + "\" from "
          + uri.redacted() + ": " + Redactor.redact(e.getMessage(), secrets) + " (SQLState " + e.getSQLState() + ")",
          Redactor.scrub(e, secrets));
    }
  }

  private static boolean isMissingTable(SQLException e) {
    String state = e.getSQLState();
    return "42P01".equals(state) || "42S02".equals(state) || e.getErrorCode() == 1146;
  }

  /** Keeps the broker's stdout open when a sink closes its stream. */
  private static final class UnclosableStream extends OutputStream {
    private final PrintStream out;

    UnclosableStream(PrintStream out) {
      this.out = out;
    }

    @Override
    public void write(int b) {
      out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) {
      out.write(b, off, len);
    }

    @Override
    public void flush() {
      out.flush();
    }
  }
}
