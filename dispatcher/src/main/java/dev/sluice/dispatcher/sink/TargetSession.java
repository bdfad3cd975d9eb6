package dev.sluice.dispatcher.sink;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * One connection of a {@link JdbcUpsertSink} to its target, and what lives as long as it: the row writer, the
 * COPY loader, the DDL statements, the column caches and the tables loading without their key. A broken
 * connection is replaced by a new session; the sink's progress and fence outlive it.
 *
 * <p>Dialect-specific parts are null where the dialect has no use for them (noted per field).
 *
 * <pre>{@code
 * TargetSession s = TargetSession.open(config, null);   // null: read the home schema from the connection
 * s.writer.upsert(table, info, row.after(), Set.of());
 * }</pre>
 */
final class TargetSession implements AutoCloseable {

  private final JdbcSinkConfig config;
  final Connection connection;
  /** The connection's default schema: the checkpoint tables live there (and MySQL's copies of every table). */
  final String homeSchema;
  /** Whether the apply session keeps the target's constraints from judging the rows ({@link ApplySession}). */
  final boolean constraintsRelaxed;
  final RowWriter writer;
  /** PostgreSQL only: snapshot chunks by COPY. */
  final PgCopyLoader copyLoader;
  /** MySQL/MariaDB only: PostgreSQL's numeric holds every decimal exactly. */
  final DecimalColumns decimals;
  /** PostgreSQL only. */
  final IdentityColumns identity;
  /** PostgreSQL only: the user-defined types tables need; other targets store their values by kind. */
  final PgUserTypes userTypes;
  final DdlStatements ddl;
  /** PostgreSQL only: tables loading their snapshot without their key; the rest of their state is in the progress. */
  final DeferredKeys deferredKeys;
  /** Autocommit, opened when a type change must be committed before the rows of the target transaction. */
  private Connection typesAhead;
  /** Of the tables this connection creates; chosen at first use. */
  private String tableOptions;

  private TargetSession(JdbcSinkConfig config, Connection connection, String homeSchema, boolean constraintsRelaxed) {
    this.config = config;
    Dialect dialect = config.dialect();
    this.connection = connection;
    this.homeSchema = homeSchema;
    this.constraintsRelaxed = constraintsRelaxed;
    this.writer = new RowWriter(connection, dialect, config.batchSize());
    this.copyLoader = dialect == Dialect.POSTGRESQL ? new PgCopyLoader(connection) : null;
    this.decimals = dialect == Dialect.MYSQL ? new DecimalColumns(connection) : null;
    this.identity = dialect == Dialect.POSTGRESQL ? new IdentityColumns(connection) : null;
    this.userTypes = dialect == Dialect.POSTGRESQL ? new PgUserTypes(connection, this::typesAhead) : null;
    this.ddl = new DdlStatements(config, dialect, connection, this::tableOptions, homeSchema);
    this.deferredKeys = dialect.defersKeys() ? new DeferredKeys(connection, writer, copyLoader, config.changefeedId(),
        dialect.qualified(homeSchema, JdbcSinkConfig.DEFERRED_ROWS_TABLE), config.batchSize()) : null;
  }

  /**
   * Connects (no autocommit) and prepares the apply session.
   *
   * @param homeSchema the home schema an earlier session read, or null to read it now
   */
  static TargetSession open(JdbcSinkConfig config, String homeSchema) throws SQLException {
    Connection c = JdbcTarget.connect(config.jdbcUrl(), config.user(), config.password());
    try {
      c.setAutoCommit(false);
      boolean relaxed = ApplySession.prepare(c, config.dialect(), config.changefeedId());
      String home = homeSchema;
      if (home == null) {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(config.dialect().currentSchemaQuery())) {
          home = rs.next() ? rs.getString(1) : null;
        }
        c.commit();
        if (home == null) {
          throw new SQLException("the JDBC URL names no default schema/database for the checkpoint tables", "3D000");
        }
      }
      return new TargetSession(config, c, home, relaxed);
    } catch (SQLException | RuntimeException e) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // closing anyway
      }
      throw e;
    }
  }

  /** The table options of the tables this connection creates ({@link KeyCollation#tableOptions}). */
  String tableOptions() throws SQLException {
    if (tableOptions == null) {
      tableOptions = KeyCollation.tableOptions(config.dialect(), connection);
    }
    return tableOptions;
  }

  /** Whether the connection is gone (closed, or not answering within 2 s). */
  boolean broken() {
    try {
      return connection.isClosed() || !connection.isValid(2);
    } catch (SQLException e) {
      return true;
    }
  }

  boolean closed() throws SQLException {
    return connection.isClosed();
  }

  /** Rolls the target transaction back and forgets what this session held for it; a broken connection is left as is. */
  void rollback() {
    writer.discard();   // rows batched before the failure belong to the rolled-back transaction
    if (copyLoader != null) {
      copyLoader.transactionEnded();
    }
    if (deferredKeys != null) {
      deferredKeys.rolledBack();
    }
    try {
      if (!connection.isClosed()) {
        connection.rollback();
      }
    } catch (SQLException ignored) {
      // the connection is broken: the sink's classification sees that
    }
  }

  /** The autocommit connection {@link PgUserTypes} commits enum labels on, so the rows after them may use them. */
  private Connection typesAhead() throws SQLException {
    if (typesAhead == null || typesAhead.isClosed()) {
      typesAhead = JdbcTarget.connect(config.jdbcUrl(), config.user(), config.password());
      typesAhead.setAutoCommit(true);
      try (Statement st = typesAhead.createStatement()) {
        st.execute("SET lock_timeout = '30s'");   // never wait for ever on a lock the target transaction holds
      }
    }
    return typesAhead;
  }

  /** Closes both connections; an open target transaction is rolled back. */
  @Override
  public void close() {
    writer.close();
    for (Connection c : new Connection[] {connection, typesAhead}) {
      if (c != null) {
        try {
          c.close();
        } catch (SQLException e) {
          // closing anyway
        }
      }
    }
    typesAhead = null;
  }
}
