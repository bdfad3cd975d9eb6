package dev.sluice.dispatcher.sink;

import java.util.regex.Pattern;

/**
 * Whether a column's source type is one of PostgreSQL's built-in types as {@code format_type} spells it
 * ({@code "integer"}, {@code "character(5)"}, {@code "timestamp(3) with time zone"}, {@code "inet[]"}): a
 * PostgreSQL target then creates the column with that very type, so the copy keeps its semantics (a real stays
 * a real, json keeps its text and duplicate keys, char(n) pads, inet and interval are not text). Anything else
 * (extension types such as hstore or geometry, reg* types naming objects the target may not have, another
 * source's spellings such as {@code int(11)} or {@code datetime}) is not, and takes the type the value's kind
 * maps to. Pure.
 *
 * <pre>{@code
 * PgBuiltinType.matches("numeric(20,5)");   // true
 * PgBuiltinType.matches("public.hstore");   // false
 * }</pre>
 */
final class PgBuiltinType {

  // format_type's output for pg_catalog's base types, with their type modifiers and an array suffix
  private static final Pattern BUILT_IN = Pattern.compile("(?:smallint|integer|bigint|real|double precision|money"
      + "|text|bytea|boolean|date|uuid|json|jsonb|jsonpath|xml|inet|cidr|macaddr|macaddr8|tsvector|tsquery"
      + "|point|line|lseg|box|path|polygon|circle|pg_lsn|oid|\"char\"|name"
      + "|(?:int4|int8|num|ts|tstz|date)(?:multi)?range"
      + "|numeric(?:\\(\\d+(?:,-?\\d+)?\\))?"
      + "|character varying(?:\\(\\d+\\))?|character(?:\\(\\d+\\))?|bit(?:\\(\\d+\\))?|bit varying(?:\\(\\d+\\))?"
      + "|(?:timestamp|time)(?:\\(\\d\\))? with(?:out)? time zone"
      + "|interval(?: (?:year|month|day|hour|minute|second)(?: to (?:month|hour|minute|second))?)?(?:\\(\\d\\))?"
      + ")(?:\\[\\])?");

  private PgBuiltinType() {}

  /** Whether {@code sourceType} is a built-in PostgreSQL type, or an array of one, in format_type's spelling. */
  static boolean matches(String sourceType) {
    return BUILT_IN.matcher(sourceType).matches();
  }
}
