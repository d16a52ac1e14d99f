import { describe, expect, it } from 'vitest';
import { ROLE_SCOPES, SCOPES } from '../../src/domain/scopes.js';
import { insufficientScopeMessage, missingScope } from '../../src/http/permissions.js';

describe('missingScope', () => {
  const key = (scopes: readonly (typeof SCOPES)[number][]) =>
    ({ kind: 'tenant', tenantId: 't', scopes, actor: { type: 'default_key' } }) as const;

  it('passes the admin, a route that needs nothing, and a holder of the scope', () => {
    expect(missingScope({ kind: 'admin', actor: { type: 'admin' } }, 'jobs:write')).toBeNull();
    expect(missingScope(key([]), undefined)).toBeNull();
    expect(missingScope(key(['jobs:write']), 'jobs:write')).toBeNull();
  });

  it('names the scope a principal lacks', () => {
    expect(missingScope(key(['jobs:read', 'chat']), 'jobs:write')).toBe('jobs:write');
    expect(insufficientScopeMessage('jobs:write')).toBe('this request needs the scope jobs:write');
  });

  it('roles map to the same scopes: a viewer reads, a member writes jobs, an owner sets budgets', () => {
    expect(missingScope(key(ROLE_SCOPES.viewer), 'jobs:read')).toBeNull();
    expect(missingScope(key(ROLE_SCOPES.viewer), 'jobs:write')).toBe('jobs:write');
    expect(missingScope(key(ROLE_SCOPES.member), 'jobs:write')).toBeNull();
    expect(missingScope(key(ROLE_SCOPES.admin), 'budgets:write')).toBe('budgets:write');
    expect(missingScope(key(ROLE_SCOPES.owner), 'budgets:write')).toBeNull();
  });
});
