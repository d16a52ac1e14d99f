// The Grafana dashboard and the example alert rules may only use metrics that the table of
// docs/operations.md describes, so a renamed metric cannot leave a silent panel or alert behind.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readMetricsExposition } from '../../scripts/metrics-exposition.js';
import { REPO_ROOT } from '../helpers/process-cli.js';

const operations = readFileSync(path.join(REPO_ROOT, 'docs/operations.md'), 'utf8');
const dashboard = JSON.parse(
  readFileSync(path.join(REPO_ROOT, 'deploy/grafana/hermesx.json'), 'utf8'),
) as { panels: { targets?: { expr: string }[] }[] };

const METRIC = /\b(?:hermesx|process|nodejs)_[a-z0-9_]+/g;
const family = (name: string) => name.replace(/_(bucket|count|sum)$/, '');

/** Names in the first column of the metrics table (and the process_*, nodejs_* families). */
function documented(): { names: Set<string>; prefixes: string[] } {
  const section = operations.slice(
    operations.indexOf('## Metrics'),
    operations.indexOf('## Alerts'),
  );
  const names = new Set<string>();
  for (const row of section.split('\n').filter((line) => line.startsWith('| `'))) {
    for (const match of (row.split('|')[1] ?? '').matchAll(/`([a-z0-9_]+)`/g)) {
      names.add(match[1] ?? '');
    }
  }
  return { names, prefixes: ['process_', 'nodejs_'] };
}

function isDocumented(name: string): boolean {
  const { names, prefixes } = documented();
  return names.has(family(name)) || prefixes.some((prefix) => name.startsWith(prefix));
}

describe('metric names in the dashboard and the alert rules', () => {
  it('the table describes every hermesx_ family /metrics serves', async () => {
    const text = await readMetricsExposition();
    const families = [...text.matchAll(/^# TYPE (hermesx_\w+) /gm)].map((m) => m[1] ?? '');
    expect(families.length).toBeGreaterThan(15);
    expect(families.filter((name) => !documented().names.has(name))).toEqual([]);
  });

  it('the dashboard uses only documented metrics', () => {
    const exprs = dashboard.panels.flatMap((panel) => panel.targets ?? []).map((t) => t.expr);
    expect(exprs.length).toBeGreaterThan(10);
    const names = exprs.flatMap((expr) => expr.match(METRIC) ?? []);
    expect(names.filter((name) => !isDocumented(name))).toEqual([]);
  });

  it('the alert rules use only documented metrics', () => {
    const rules = operations.slice(operations.indexOf('## Alerts'), operations.indexOf('## Logs'));
    const names = rules.match(METRIC) ?? [];
    expect(names.length).toBeGreaterThan(5);
    expect(names.filter((name) => !isDocumented(name))).toEqual([]);
  });
});
