// The audit log's pure parts: the diff of a change (secrets never kept) and the action a route
// without a declared one gets.
import { describe, expect, it } from 'vitest';
import { REDACTED, diffFields, withoutSecrets } from '../../src/domain/audit.js';
import { deriveAudit } from '../../src/http/audit-hook.js';

describe('diffFields', () => {
  it('keeps only the fields that changed, before and after', () => {
    expect(
      diffFields(
        { name: 'a', prompt: 'p', enabled: true, updated_at: '1', labels: { team: 'x' } },
        { name: 'a', prompt: 'q', enabled: true, updated_at: '2', labels: { team: 'y' } },
      ),
    ).toEqual({
      before: { prompt: 'p', labels: { team: 'x' } },
      after: { prompt: 'q', labels: { team: 'y' } },
    });
  });

  it('is null when nothing changed, and one-sided for a creation or a deletion', () => {
    expect(diffFields({ a: 1, updated_at: '1' }, { a: 1, updated_at: '2' })).toBeNull();
    expect(diffFields(null, { a: 1 })).toEqual({ after: { a: 1 } });
    expect(diffFields({ a: 1 }, undefined)).toEqual({ before: { a: 1 } });
    expect(diffFields(null, null)).toBeNull();
  });

  it('redacts secret-named fields at every depth', () => {
    expect(
      withoutSecrets({
        value: 'v',
        secret: 's',
        headers: { 'X-Api-Key': 'k', authorization: 'Bearer t', accept: 'json' },
        list: [{ api_token: 't', name: 'n' }],
        password: 'p',
        key_prefix: 'hk_abc',
      }),
    ).toEqual({
      value: REDACTED,
      secret: REDACTED,
      headers: { 'X-Api-Key': REDACTED, authorization: REDACTED, accept: 'json' },
      list: [{ api_token: REDACTED, name: 'n' }],
      password: REDACTED,
      key_prefix: 'hk_abc',
    });
    expect(diffFields({ secret: 'old' }, { secret: 'new' })).toEqual({
      before: { secret: REDACTED },
      after: { secret: REDACTED },
    });
  });
});

it('cuts long text to its beginning and its length', () => {
  expect(withoutSecrets({ content: 'x'.repeat(5000) })).toEqual({
    content: `${'x'.repeat(1000)}… (5000 characters)`,
  });
});

describe('deriveAudit', () => {
  it('names a route without a declared action from its method and URL', () => {
    expect(deriveAudit('POST', '/v1/channels')).toEqual({
      action: 'channel.create',
      target: 'channel',
    });
    expect(deriveAudit('PATCH', '/v1/channels/:id')).toEqual({
      action: 'channel.update',
      target: 'channel',
    });
    expect(deriveAudit('PUT', '/v1/budgets/:id')).toEqual({
      action: 'budget.update',
      target: 'budget',
    });
    expect(deriveAudit('DELETE', '/v1/mcp-servers/:id')).toEqual({
      action: 'mcp_server.delete',
      target: 'mcp_server',
    });
    expect(deriveAudit('POST', '/v1/channels/:id/test')).toEqual({
      action: 'channel.test',
      target: 'channel',
    });
  });
});
