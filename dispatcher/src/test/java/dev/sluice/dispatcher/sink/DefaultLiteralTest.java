package dev.sluice.dispatcher.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** PostgreSQL default expressions as literals for a derived ADD COLUMN (empty: not translated). */
class DefaultLiteralTest {

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(delimiter = '|', quoteCharacter = '"', nullValues = "-", value = {
      "10                         | 10",
      "(-5)                       | -5",
      "'-5'::integer              | -5",
      "1.25                       | 1.25",
      "'12.50'::numeric           | 12.50",
      "true                       | TRUE",
      "false                      | FALSE",
      "'new'::text                | 'new'",
      "'it''s'::character varying | 'it''s'",
      "'a\\b'::text                | 'a\\\\b'",
      "'{}'::jsonb                | '{}'",
      "now()                      | -",
      "nextval('s'::regclass)     | -",
      "(1 + 2)                    | -"})
  void constantsAreTranslatedAndNothingElse(String source, String mysql) {
    assertThat(DefaultLiteral.of(source, Dialect.MYSQL)).isEqualTo(Optional.ofNullable(mysql));
  }
}
