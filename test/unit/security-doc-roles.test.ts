// docs/security.md's role → scope table is ROLE_SCOPES, cell for cell.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROLES, ROLE_SCOPES, SCOPES } from '../../src/domain/scopes.js';

const DOC = readFileSync(path.resolve(import.meta.dirname, '../../docs/security.md'), 'utf8');

describe('docs/security.md, "Users, roles and sign-in"', () => {
  it('has the role → scope table of ROLE_SCOPES', () => {
    const section = DOC.split('## Users, roles and sign-in')[1] ?? '';
    const rows = section
      .split('\n')
      .filter((line) => /^\| `[a-z:]+`/.test(line))
      .map((line) =>
        line
          .split('|')
          .slice(1, -1)
          .map((cell) => cell.trim()),
      );
    const table = Object.fromEntries(
      rows
        .filter((cells) => cells.length === ROLES.length + 1)
        .map(([scope = '', ...marks]) => [
          scope.replaceAll('`', ''),
          ROLES.filter((_, i) => marks[i] === '✓'),
        ]),
    );
    const expected = Object.fromEntries(
      SCOPES.map((scope) => [scope, ROLES.filter((role) => ROLE_SCOPES[role].includes(scope))]),
    );
    expect(table).toEqual(expected);
  });
});
