package dev.sluice.broker.capture;

import java.util.List;

/**
 * The SQL of DDL capture: the {@code sluice.ddl_capture} table, the function that renders a table's
 * definition as jsonb (with the user-defined types its columns need), and the two event-trigger
 * functions. The same definition expression feeds the catalog read at slot creation, so initial versions
 * and captured versions compare equal. An {@code ALTER TYPE} / {@code ALTER DOMAIN} writes one row for
 * each captured table that uses the type, so those tables get versions with its new definition.
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

  /**
   * A jsonb array of the user-defined types (enums, standalone composites, domains) the type whose oid
   * {@code typeOid} evaluates to needs, each once, the types it is built from first (deepest first) and
   * itself (or its array element) last; {@code []} for a built-in type. Each element:
   * {@code {oid, schema, name, kind ('e' | 'c' | 'd'), labels, fields [{name, type}], base, not_null,
   * default, constraints}}.
   */
  static String userTypesOf(String typeOid) {
    return """
        COALESCE((
          WITH RECURSIVE deps(oid, depth) AS (
            SELECT (%s)::oid, 0
            UNION ALL
            SELECT e.dep, deps.depth + 1
            FROM deps JOIN pg_catalog.pg_type dt ON dt.oid = deps.oid
            CROSS JOIN LATERAL (
              SELECT dt.typelem AS dep WHERE dt.typcategory = 'A' AND dt.typelem <> 0
              UNION ALL SELECT dt.typbasetype WHERE dt.typtype = 'd'
              UNION ALL SELECT at.atttypid FROM pg_catalog.pg_attribute at
                WHERE dt.typtype = 'c' AND at.attrelid = dt.typrelid AND at.attnum > 0 AND NOT at.attisdropped) e
            WHERE deps.depth < 16)
          SELECT jsonb_agg(jsonb_build_object(
                   'oid', ut.oid::int8, 'schema', un.nspname, 'name', ut.typname, 'kind', ut.typtype::text,
                   'labels', (SELECT jsonb_agg(en.enumlabel ORDER BY en.enumsortorder)
                              FROM pg_catalog.pg_enum en WHERE en.enumtypid = ut.oid),
                   'fields', (SELECT jsonb_agg(jsonb_build_object('name', fa.attname,
                                'type', pg_catalog.format_type(fa.atttypid, fa.atttypmod)) ORDER BY fa.attnum)
                              FROM pg_catalog.pg_attribute fa
                              WHERE ut.typtype = 'c' AND fa.attrelid = ut.typrelid AND fa.attnum > 0
                                AND NOT fa.attisdropped),
                   'base', CASE WHEN ut.typtype = 'd' THEN pg_catalog.format_type(ut.typbasetype, ut.typtypmod) END,
                   'not_null', ut.typnotnull, 'default', ut.typdefault,
                   'constraints', (SELECT jsonb_agg('CONSTRAINT ' || pg_catalog.quote_ident(co.conname) || ' '
                                     || pg_catalog.pg_get_constraintdef(co.oid) ORDER BY co.conname)
                                   FROM pg_catalog.pg_constraint co WHERE co.contypid = ut.oid AND co.contype = 'c'))
                 ORDER BY x.depth DESC, ut.oid)
          FROM (SELECT oid, max(depth) AS depth FROM deps GROUP BY oid) x
          JOIN pg_catalog.pg_type ut ON ut.oid = x.oid
          JOIN pg_catalog.pg_namespace un ON un.oid = ut.typnamespace
          WHERE un.nspname NOT IN ('pg_catalog', 'information_schema')
            AND (ut.typtype IN ('e', 'd') OR (ut.typtype = 'c' AND EXISTS (
                  SELECT 1 FROM pg_catalog.pg_class uc WHERE uc.oid = ut.typrelid AND uc.relkind = 'c')))),
          '[]'::jsonb)""".formatted(typeOid);
  }

  /**
   * Whether the default of the column aliased {@code a} (pg_attribute) with default {@code d}
   * (pg_attrdef) gives a value that depends on when or where it is computed: it calls a function that is
   * not IMMUTABLE (by name, any overload: now(), random(), gen_random_uuid(), nextval(), ...), or is one
   * of the SQL value functions (CURRENT_TIMESTAMP, LOCALTIME, CURRENT_USER, ...). String literals are left
   * out first, so a default of 'f(x)' is a constant. pg_depend does not help: it records no dependency on
   * built-in functions.
   */
  static final String DEFAULT_NOT_IMMUTABLE = """
      (EXISTS (SELECT 1 FROM regexp_matches(regexp_replace(pg_catalog.pg_get_expr(d.adbin, d.adrelid),
                                  '''([^'']|'''')*''', '', 'g'), '([A-Za-z_][A-Za-z0-9_$]*)\\s*\\(', 'g') AS f(m)
               JOIN pg_catalog.pg_proc p ON p.proname = lower(f.m[1]) WHERE p.provolatile <> 'i')
       OR regexp_replace(pg_catalog.pg_get_expr(d.adbin, d.adrelid), '''([^'']|'''')*''', '', 'g')
          ~* '\\m(current_(timestamp|date|time|user|role|catalog|schema)|localtime(stamp)?|session_user|user)\\M')""";

  /** jsonb definition of the table aliased {@code c} (a pg_class row). */
  static final String DEFINITION_OF_C = """
      jsonb_build_object(
        'schema', (SELECT n.nspname FROM pg_catalog.pg_namespace n WHERE n.oid = c.relnamespace),
        'name', c.relname,
        'columns', COALESCE((
          SELECT jsonb_agg(jsonb_build_object(
                   'name', a.attname, 'type_oid', a.atttypid::int8, 'type', pg_catalog.format_type(a.atttypid, a.atttypmod),
                   'not_null', a.attnotnull, 'default', pg_catalog.pg_get_expr(d.adbin, d.adrelid),
                   'default_volatile', a.attidentity <> '' OR (d.adbin IS NOT NULL AND
      """ + DEFAULT_NOT_IMMUTABLE + """
                   ),
                   'user_types', CASE WHEN a.atttypid >= 16384 THEN
      """ + userTypesOf("a.atttypid") + """
                   ELSE '[]'::jsonb END)
                 ORDER BY a.attnum)
          FROM pg_catalog.pg_attribute a
          LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
          WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''), '[]'::jsonb),
        'generated', COALESCE((
          SELECT jsonb_agg(jsonb_build_object(
                   'name', a.attname, 'type', pg_catalog.format_type(a.atttypid, a.atttypmod), 'not_null', a.attnotnull,
                   'expression', pg_catalog.pg_get_expr(d.adbin, d.adrelid),
                   'position', (SELECT count(*) FROM pg_catalog.pg_attribute b WHERE b.attrelid = c.oid
                                AND b.attnum > 0 AND b.attnum < a.attnum AND NOT b.attisdropped))
                 ORDER BY a.attnum)
          FROM pg_catalog.pg_attribute a
          JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
          WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = 's'), '[]'::jsonb),
        'partition_by', CASE WHEN c.relkind = 'p' THEN pg_catalog.pg_get_partkeydef(c.oid) END,
        'partition_bound', CASE WHEN c.relispartition THEN pg_catalog.pg_get_expr(c.relpartbound, c.oid) END,
        'partition_ancestors', CASE WHEN c.relispartition THEN COALESCE((
          SELECT jsonb_agg(jsonb_build_object(
                   'schema', an.nspname, 'name', ac.relname, 'partition_by', pg_catalog.pg_get_partkeydef(ac.oid),
                   'partition_bound', CASE WHEN ac.relispartition
                                      THEN pg_catalog.pg_get_expr(ac.relpartbound, ac.oid) END,
                   'key', COALESCE((
                     SELECT jsonb_agg(ka.attname ORDER BY k.ord)
                     FROM pg_catalog.pg_index ai
                     CROSS JOIN LATERAL unnest(ai.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
                     JOIN pg_catalog.pg_attribute ka ON ka.attrelid = ac.oid AND ka.attnum = k.attnum
                     WHERE ai.indrelid = ac.oid AND ai.indisprimary), '[]'::jsonb),
                   'columns', COALESCE((
                     SELECT jsonb_agg(ca.attname ORDER BY ca.attnum) FROM pg_catalog.pg_attribute ca
                     WHERE ca.attrelid = ac.oid AND ca.attnum > 0 AND NOT ca.attisdropped), '[]'::jsonb))
                 ORDER BY x.level)
          FROM pg_catalog.pg_partition_ancestors(c.oid) WITH ORDINALITY AS x(relid, level)
          JOIN pg_catalog.pg_class ac ON ac.oid = x.relid
          JOIN pg_catalog.pg_namespace an ON an.oid = ac.relnamespace
          WHERE x.relid <> c.oid), '[]'::jsonb) END,
        'key', COALESCE((
          SELECT jsonb_agg(a.attname ORDER BY k.ord)
          FROM (SELECT i.indkey FROM pg_catalog.pg_index i
                WHERE i.indrelid = c.oid AND (i.indisprimary OR i.indisreplident)
                ORDER BY i.indisreplident DESC, i.indisprimary DESC LIMIT 1) x
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
          SELECT COALESCE(i.indrelid, c.oid) AS rel
          FROM pg_event_trigger_ddl_commands() cmd
          JOIN pg_class c ON c.oid = cmd.objid AND cmd.classid = 'pg_class'::regclass
          LEFT JOIN pg_index i ON i.indexrelid = c.oid
          UNION
          -- ALTER TYPE / ALTER DOMAIN: every table with a column whose type is built from the changed type
          SELECT a.attrelid FROM (
            WITH RECURSIVE changed(oid, depth) AS (
              SELECT cmd.objid, 0 FROM pg_event_trigger_ddl_commands() cmd WHERE cmd.classid = 'pg_type'::regclass
              UNION ALL
              SELECT t.oid, 0 FROM pg_event_trigger_ddl_commands() cmd JOIN pg_type t ON t.typrelid = cmd.objid
              WHERE cmd.classid = 'pg_class'::regclass AND cmd.object_type = 'composite type'
              UNION ALL
              SELECT ut.oid, ch.depth + 1 FROM changed ch JOIN pg_type ut
                ON (ut.typcategory = 'A' AND ut.typelem = ch.oid) OR (ut.typtype = 'd' AND ut.typbasetype = ch.oid)
                   OR (ut.typtype = 'c' AND EXISTS (SELECT 1 FROM pg_attribute fa WHERE fa.attrelid = ut.typrelid
                         AND fa.atttypid = ch.oid AND fa.attnum > 0 AND NOT fa.attisdropped))
              WHERE ch.depth < 16)
            SELECT DISTINCT oid FROM changed) ty
          JOIN pg_attribute a ON a.atttypid = ty.oid AND a.attnum > 0 AND NOT a.attisdropped
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
