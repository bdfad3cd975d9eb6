package dev.sluice.dispatcher.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Statements are cut only at semicolons the PostgreSQL lexer would end a statement at. */
class SqlStatementsTest {

  static Stream<Arguments> texts() {
    return Stream.of(
        Arguments.of("one statement", "ALTER TABLE t ADD c text", 1),
        Arguments.of("trailing semicolon and spaces", "ALTER TABLE t ADD c text ;  \n", 1),
        Arguments.of("issue #16's migration as one string", "ALTER TABLE person ADD COLUMN first_name text; "
            + "UPDATE person SET first_name = split_part(name, ' ', 1); ALTER TABLE person ALTER first_name SET NOT NULL",
            3),
        Arguments.of("semicolon in a string", "UPDATE t SET v = 'a;b'", 1),
        Arguments.of("doubled quote in a string", "UPDATE t SET v = 'it''s; fine'", 1),
        Arguments.of("E-string with an escaped quote", "UPDATE t SET v = E'a\\';b'", 1),
        Arguments.of("not an E-string: a backslash is a character", "UPDATE t SET v = 'a\\'; SELECT 1", 2),
        Arguments.of("quoted identifier", "ALTER TABLE \"we;ird\" ADD c int", 1),
        Arguments.of("dollar-quoted body", "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 1; $$", 1),
        Arguments.of("tagged dollar quote with $$ inside", "DO $fn$ BEGIN PERFORM 1; RAISE NOTICE '$$;'; END $fn$", 1),
        Arguments.of("parameter is not a dollar quote", "SELECT $1; SELECT $2", 2),
        Arguments.of("line comment", "ALTER TABLE t ADD c int -- a; b\n", 1),
        Arguments.of("nested block comment", "/* x; /* y; */ z; */ ALTER TABLE t ADD c int", 1),
        Arguments.of("comment-only statement is none", "ALTER TABLE t ADD c int; -- done", 1),
        Arguments.of("two statements", "CREATE TABLE a (id int); CREATE TABLE b (id int)", 2));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("texts")
  void countsTheStatementsTheServerWouldRun(String name, String sql, int statements) {
    assertThat(SqlStatements.split(sql)).hasSize(statements);
    assertThat(SqlStatements.isSingle(sql)).isEqualTo(statements == 1);
  }

  @org.junit.jupiter.api.Test
  void findsTheOneIndexStatementAmongSeveral() {
    String migration = "ALTER TABLE t ADD c int; CREATE UNIQUE INDEX t_c ON t (c); UPDATE t SET c = 1";
    assertThat(SqlStatements.onlyStartingWith(migration, List.of("CREATE INDEX", "CREATE UNIQUE INDEX")))
        .isEqualTo("CREATE UNIQUE INDEX t_c ON t (c)");
    assertThat(SqlStatements.onlyStartingWith("CREATE INDEX a ON t (c); CREATE INDEX b ON t (d)",
        List.of("CREATE INDEX"))).isNull();
  }
}
