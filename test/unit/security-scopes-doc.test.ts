// docs/security.md's scope table is every documented route with what it needs, as the service
// registers them (scripts/scope-table.ts prints the table to paste).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readScopeRows } from '../../scripts/scope-table.js';

const DOC = readFileSync(path.resolve(import.meta.dirname, '../../docs/security.md'), 'utf8');

/** The table between the markers, as rows of trimmed cells (prettier's padding ignored). */
function documentedRows(): string[][] {
  const start = DOC.indexOf('<!-- scope-table:start -->');
  const end = DOC.indexOf('<!-- scope-table:end -->');
  expect(start, 'the scope table markers in docs/security.md').toBeGreaterThan(-1);
  return DOC.slice(start, end)
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .slice(2)
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim().replace(/^`|`$/g, '')),
    );
}

describe('docs/security.md', () => {
  it('lists every route with the scope it needs (node --import tsx scripts/scope-table.ts)', async () => {
    const rows = (await readScopeRows()).map(([method, url, needs]) => [
      method,
      url,
      needs.replace(/^`|`$/g, ''),
    ]);
    expect(documentedRows()).toEqual(rows);
  });
});
