// The schema in force, as text: tables, constraints, indexes, policies, triggers, functions and
// their grants, read from the catalogs of a migrated database. test/schema.sql holds it for
// review (`npm run schema:dump` writes it) and a test fails when the migrations no longer give it.
import type pg from 'pg';

const SECTIONS: { title: string; sql: string }[] = [
  {
    title: 'columns',
    sql: `SELECT c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
                 || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
                 || coalesce(' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid), '') AS line
            FROM pg_attribute a
            JOIN pg_class c ON c.oid = a.attrelid AND c.relkind = 'r'
            JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
            LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
           WHERE a.attnum > 0 AND NOT a.attisdropped
           ORDER BY c.relname, a.attnum`,
  },
  {
    title: 'constraints',
    sql: `SELECT c.relname || ' ' || k.conname || ' ' || pg_get_constraintdef(k.oid) AS line
            FROM pg_constraint k
            JOIN pg_class c ON c.oid = k.conrelid
            JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
           ORDER BY c.relname, k.conname`,
  },
  {
    title: 'indexes',
    sql: `SELECT indexdef AS line FROM pg_indexes WHERE schemaname = 'public'
           ORDER BY tablename, indexname`,
  },
  {
    title: 'row-level security',
    sql: `SELECT relname || ' rls=' || relrowsecurity || ' force=' || relforcerowsecurity AS line
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
           WHERE c.relkind = 'r' ORDER BY relname`,
  },
  {
    title: 'policies',
    sql: `SELECT tablename || ' ' || policyname || ' ' || cmd || ' TO '
                 || array_to_string(array(SELECT CASE WHEN r = current_user THEN '<owner>' ELSE r END
                                            FROM unnest(roles) AS r), ',')
                 || coalesce(' USING (' || qual || ')', '')
                 || coalesce(' WITH CHECK (' || with_check || ')', '') AS line
            FROM pg_policies WHERE schemaname = 'public' ORDER BY tablename, policyname`,
  },
  {
    title: 'triggers',
    sql: `SELECT pg_get_triggerdef(t.oid) AS line FROM pg_trigger t
            JOIN pg_class c ON c.oid = t.tgrelid
            JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
           WHERE NOT t.tgisinternal ORDER BY c.relname, t.tgname`,
  },
  {
    title: 'function grants',
    sql: `SELECT p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ') '
                 || CASE WHEN p.prosecdef THEN 'SECURITY DEFINER' ELSE 'INVOKER' END
                 || ' execute: ' || coalesce(array_to_string(array(
                      SELECT grantee::regrole::text FROM aclexplode(p.proacl)
                       WHERE privilege_type = 'EXECUTE' AND grantee <> p.proowner AND grantee <> 0
                       ORDER BY 1), ','), '')
                 || CASE WHEN p.proacl IS NULL OR EXISTS (SELECT 1 FROM aclexplode(p.proacl)
                       WHERE grantee = 0) THEN ' +PUBLIC' ELSE '' END AS line
            FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace AND n.nspname = 'public'
           ORDER BY p.proname, 1`,
  },
  {
    title: 'functions',
    sql: `SELECT pg_get_functiondef(p.oid) AS line
            FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace AND n.nspname = 'public'
           ORDER BY p.proname, pg_get_function_identity_arguments(p.oid)`,
  },
];

/** The schema of the connected database's public schema, as stable text. */
export async function dumpSchema(client: pg.ClientBase): Promise<string> {
  const parts = [
    '-- The schema in force after every migration (generated: npm run schema:dump; do not edit).',
  ];
  for (const section of SECTIONS) {
    const { rows } = await client.query<{ line: string }>(section.sql);
    parts.push('', `-- ${section.title}`, ...rows.map((row) => row.line.trimEnd()));
  }
  return `${parts.join('\n')}\n`;
}
