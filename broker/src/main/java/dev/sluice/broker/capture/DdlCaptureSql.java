package dev.sluice.broker.capture;

import java.util.List;

/**
 * The SQL of DDL capture: the {@code sluice.ddl_capture} table, the function that renders a table's
 * definition as jsonb, and the two event-trigger functions. The same definition expression feeds the
 * catalog read at slot creation, so initial versions and captured versions compare equal.
 *
 * <p>Type names come from {@code format_type} with {@code search_path = pg_catalog}, so non-catalog
 * types are always schema-qualified ({@code demo.mood}) whatever the DDL session's search path was.
 */
final class DdlCaptureSql {

  static final String SCHEMA = "sluice";
  static final String CAPTURE_TABLE = "ddl_capture";
  static final String END_TRIGGER = "sluice_ddl_command_end";
  static final String DROP_TRIGGER = "sluice_sql_drop";

  /** Schemas whose tables are never captured. */
  static final String EXCLUDED_SCHEMAS = "('sluice', 'pg_catalog', 'information_schema')";

  /** jsonb definition of the table aliased {@code c} (a pg_class row). */
  static final String DEFINITION_OF_C = """
      jsonb_build_object(
        'schema', (SELECT n.nspname FROM pg_catalog.pg_namespace n WHERE n.oid = c.relnamespace),
        'name', c.relname,
        'columns', COALESCE((
          SELECT jsonb_agg(jsonb_build_object(
                   'name', a.attname, 'type_oid', a.atttypid::int8, 'type', pg_catalog.format_type(a.atttypid, a.atttypmod),
                   'not_null', a.attnotnull, 'default', pg_catalog.pg_get_expr(d.adbin, d.adrelid))
                 ORDER BY a.attnum)
          FROM pg_catalog.pg_attribute a
          LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
          WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''), '[]'::jsonb),
        'key', COALESCE((
          SELECT jsonb_agg(a.attname ORDER BY k.ord)
          FROM (SELECT i.indkey FROM pg_catalog.pg_index i
                WHERE i.indrelid = c.oid AND (i.indisprimary OR i.indisreplident)
                ORDER BY i.indisprimary DESC LIMIT 1) x
          CROSS JOIN LATERAL unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
          JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum), '[]'::jsonb))""";

  /** Tables capture follows: permanent ordinary and partitioned tables outside the excluded schemas. */
  static final String CAPTURED_TABLE_FILTER = """
      c.relkind IN ('r', 'p') AND c.relpersistence = 'p'
      AND (SELECT n.nspname FROM pg_catalog.pg_namespace n WHERE n.oid = c.relnamespace)
          NOT IN ('sluice', 'pg_catalog', 'information_schema')
      AND (SELECT n.nspname FROM pg_catalog.pg_namespace n WHERE n.oid = c.relnamespace) NOT LIKE 'pg\\_%'""";

  /** Every captured table with its definition: the initial versions. */
  static final String ALL_DEFINITIONS = "SELECT c.oid, " + DEFINITION_OF_C
      + "::text FROM pg_catalog.pg_class c WHERE " + CAPTURED_TABLE_FILTER + " ORDER BY c.oid";

  /** Installs (idempotently) the schema, the capture table and the functions; run in one transaction. */
  static final List<String> INSTALL = List.of(
      "CREATE SCHEMA IF NOT EXISTS sluice",
      """
      CREATE TABLE IF NOT EXISTS sluice.ddl_capture (
        id bigserial PRIMARY KEY,
        captured_at timestamptz NOT NULL DEFAULT now(),
        command_tag text NOT NULL,
        table_oid oid NOT NULL,
        statement text NOT NULL,
        definition jsonb NOT NULL)""",
      "CREATE OR REPLACE FUNCTION sluice.table_definition(rel oid) RETURNS jsonb LANGUAGE sql STABLE "
          + "SET search_path = pg_catalog, pg_temp AS $fn$ SELECT " + DEFINITION_OF_C
          + " FROM pg_catalog.pg_class c WHERE c.oid = rel $fn$",
      """
      CREATE OR REPLACE FUNCTION sluice.capture_ddl() RETURNS event_trigger LANGUAGE plpgsql SECURITY DEFINER
      SET search_path = pg_catalog, pg_temp AS $fn$
      DECLARE
        r record;
      BEGIN
        FOR r IN
          SELECT DISTINCT COALESCE(i.indrelid, c.oid) AS rel
          FROM pg_event_trigger_ddl_commands() cmd
          JOIN pg_class c ON c.oid = cmd.objid AND cmd.classid = 'pg_class'::regclass
          LEFT JOIN pg_index i ON i.indexrelid = c.oid
        LOOP
          PERFORM 1 FROM pg_class c WHERE c.oid = r.rel
            AND\s""" + CAPTURED_TABLE_FILTER + """
      ;
          CONTINUE WHEN NOT FOUND;
          INSERT INTO sluice.ddl_capture(command_tag, table_oid, statement, definition)
          VALUES (tg_tag, r.rel, coalesce(current_query(), ''), sluice.table_definition(r.rel));
        END LOOP;
      END
      $fn$""",
      """
      CREATE OR REPLACE FUNCTION sluice.capture_drop() RETURNS event_trigger LANGUAGE plpgsql SECURITY DEFINER
      SET search_path = pg_catalog, pg_temp AS $fn$
      DECLARE
        r record;
      BEGIN
        IF EXISTS (SELECT 1 FROM pg_event_trigger_dropped_objects()
                   WHERE object_type = 'table' AND schema_name = 'sluice' AND object_name = 'ddl_capture') THEN
          RETURN;
        END IF;
        FOR r IN
          SELECT objid, schema_name, object_name FROM pg_event_trigger_dropped_objects()
          WHERE object_type = 'table' AND NOT is_temporary
            AND schema_name NOT IN ('sluice', 'pg_catalog', 'information_schema')
        LOOP
          INSERT INTO sluice.ddl_capture(command_tag, table_oid, statement, definition)
          VALUES (tg_tag, r.objid, coalesce(current_query(), ''),
                  jsonb_build_object('schema', r.schema_name, 'name', r.object_name, 'dropped', true));
        END LOOP;
      END
      $fn$""");

  /** Creates one missing event trigger: format with the trigger name, the event and the function. */
  static final String CREATE_TRIGGER = "CREATE EVENT TRIGGER %s ON %s EXECUTE FUNCTION %s()";

  private DdlCaptureSql() {}
}
