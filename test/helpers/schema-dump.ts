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
            JOIN pg_class c ON c.oid = a.attrelid AND c.relkind IN ('r', 'p') AND NOT c.relispartition
            JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
            LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
           WHERE a.attnum > 0 AND NOT a.attisdropped
           ORDER BY c.relname, a.attnum`,
  },
  {
    title: 'constraints',
    sql: `SELECT c.relname || ' ' || k.conname || ' ' || pg_get_constraintdef(k.oid) AS line
            FROM pg_constraint k
            JOIN pg_class c ON c.oid = k.conrelid AND NOT c.relispartition
            JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
           ORDER BY c.relname, k.conname`,
  },
  {
    title: 'indexes',
    sql: `SELECT indexdef AS line FROM pg_indexes i
            JOIN pg_class c ON c.relname = i.tablename AND c.relnamespace = 'public'::regnamespace
           WHERE i.schemaname = 'public' AND NOT c.relispartition
           ORDER BY tablename, indexname`,
  },
  {
    title: 'storage parameters',
    sql: `SELECT c.relname || ' ' || array_to_string(c.reloptions, ' ') AS line
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
           WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND c.reloptions IS NOT NULL
           ORDER BY c.relname`,
  },
  {
    title: 'row-level security',
    sql: `SELECT relname || ' rls=' || relrowsecurity || ' force=' || relforcerowsecurity AS line
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
           WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY relname`,
  },
  {
    // Partitions come and go by the day: each kind is shown once, its dates as YYYYMMDD, with
    // what direct access to it meets (RLS, policies, the app's grants).
    title: 'partitions',
    sql: `SELECT DISTINCT parent.relname || ' ' || regexp_replace(c.relname, '[0-9]{8}', 'YYYYMMDD')
                 || ' ' || regexp_replace(pg_get_expr(c.relpartbound, c.oid),
                                          '[0-9]{4}-[0-9]{2}-[0-9]{2} 00:00:00[+]00', 'YYYY-MM-DD', 'g')
                 || ' rls=' || c.relrowsecurity || ' force=' || c.relforcerowsecurity
                 || ' policies=' || (SELECT count(*) FROM pg_policy p WHERE p.polrelid = c.oid)
                 || ' app=' || coalesce((SELECT string_agg(privilege_type, ',' ORDER BY privilege_type)
                                          FROM aclexplode(c.relacl) a
                                         WHERE a.grantee = 'hermesx_app'::regrole), '') AS line
            FROM pg_class c
            JOIN pg_inherits i ON i.inhrelid = c.oid
            JOIN pg_class parent ON parent.oid = i.inhparent
            JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
           WHERE c.relispartition AND c.relkind = 'r' ORDER BY 1`,
  },
  {
    title: 'policies',
    sql: `SELECT tablename || ' ' || policyname || ' ' || cmd || ' TO '
                 || array_to_string(array(SELECT CASE WHEN r = current_user THEN '<owner>' ELSE r END
                                            FROM unnest(roles) AS r), ',')
                 || coalesce(' USING (' || qual || ')', '')
                 || coalesce(' WITH CHECK (' || with_check || ')', '') AS line
            FROM pg_policies p
            JOIN pg_class c ON c.relname = p.tablename AND c.relnamespace = 'public'::regnamespace
           WHERE p.schemaname = 'public' AND NOT c.relispartition
           ORDER BY tablename, policyname`,
  },
  {
    title: 'triggers',
    sql: `SELECT pg_get_triggerdef(t.oid) AS line FROM pg_trigger t
            JOIN pg_class c ON c.oid = t.tgrelid AND NOT c.relispartition
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
