// The audit's side of "at most once per occurrence": a call with side effects is begun (written
// before it is made) or replayed from an earlier attempt's record; the tool learns its position;
// what is stored holds no U+0000. And http_request's Idempotency-Key.
import { describe, expect, it } from 'vitest';
import { deriveIdempotencyKey } from '../../src/agent/idempotency-key.js';
import type { AgentTool, ToolContext } from '../../src/agent/tool.js';
import {
  auditTools,
  type BegunCall,
  type RecordedResult,
  type ToolCallRecord,
} from '../../src/agent/tools/audit.js';
import { createHttpRequestTool, type HttpSender } from '../../src/agent/tools/http-request.js';
import { NO_SECRETS } from '../../src/secrets/redact.js';
import { createSecretsVault } from '../../src/secrets/vault.js';
import type { Pool } from '../../src/db/pool.js';

const context: ToolContext = { tenantId: 't', signal: new AbortController().signal };

function effectful(run: AgentTool['run']): AgentTool {
  return {
    definition: { type: 'function', function: { name: 'post', parameters: { type: 'object' } } },
    run,
    sideEffects: (args) => (args as { write?: boolean }).write === true,
  };
}

describe('a call with side effects in the audit', () => {
  it('is begun before it is made, and the tool learns its position', async () => {
    const order: string[] = [];
    const positions: (number | undefined)[] = [];
    const records: ToolCallRecord[] = [];
    const [tool] = auditTools(
      [
        effectful(async (_args, ctx) => {
          order.push('run');
          positions.push(ctx.position);
          return '{"ok":true}';
        }),
      ],
      {
        redactor: NO_SECRETS,
        begin: async (call) => {
          order.push(`begin ${call.seq}`);
          return null;
        },
        record: async (record) => {
          order.push(`record ${record.seq}`);
          records.push(record);
        },
      },
    );
    await tool!.run({ write: false }, context);
    await tool!.run({ write: true }, context);
    expect(order).toEqual(['run', 'record 1', 'begin 2', 'run', 'record 2']);
    expect(positions).toEqual([1, 2]);
    // Only a call with side effects keeps its result, for a later attempt to replay.
    expect(records.map((r) => [r.status, r.sideEffects, r.result])).toEqual([
      ['ok', false, null],
      ['ok', true, '{"ok":true}'],
    ]);
  });

  it('is replayed from the record of an earlier attempt, not made again', async () => {
    let made = 0;
    const begun: BegunCall[] = [];
    const records: ToolCallRecord[] = [];
    const recorded: RecordedResult = { result: '{"ok":true,"status":201}', httpStatus: 201 };
    const [tool] = auditTools(
      [
        effectful(async () => {
          made += 1;
          return 'made';
        }),
      ],
      {
        redactor: NO_SECRETS,
        begin: async (call) => (begun.push(call), recorded),
        record: async (record) => void records.push(record),
      },
    );
    expect(await tool!.run({ write: true }, context)).toBe(recorded.result);
    expect(made).toBe(0);
    expect(begun).toEqual([{ seq: 1, tool: 'post', arguments: { write: true } }]);
    expect(records).toMatchObject([
      { seq: 1, status: 'replayed', sideEffects: false, httpStatus: 201, result: null },
    ]);
  });

  it('stores U+0000 as U+FFFD in arguments, errors and results', async () => {
    const records: ToolCallRecord[] = [];
    const begun: BegunCall[] = [];
    const [tool] = auditTools(
      [
        effectful(async (_args, ctx) => {
          ctx.report?.({ status: 'error', error: 'a\u0000b' });
          return 'partial\u0000';
        }),
      ],
      {
        redactor: NO_SECRETS,
        begin: async (call) => (begun.push(call), null),
        record: async (record) => void records.push(record),
      },
    );
    const answer = await tool!.run(
      { write: true, 'k\u0000': 'v\u0000', list: ['\u0000'] },
      context,
    );
    // The model is shown what the tool answered; only what is stored changes.
    expect(answer).toContain('\u0000');
    const stored = { write: true, 'k\uFFFD': 'v\uFFFD', list: ['\uFFFD'] };
    expect(begun[0]!.arguments).toEqual(stored);
    expect(records[0]).toMatchObject({ arguments: stored, error: 'a\uFFFDb' });
    expect(records[0]!.result).not.toContain('\u0000');
    expect(JSON.stringify(records[0])).not.toContain('\\u0000');
  });
});

describe("http_request's Idempotency-Key", () => {
  const sent: Record<string, string>[] = [];
  const send: HttpSender = async (request) => {
    sent.push(request.headers);
    return {
      status: 200,
      headers: {},
      body: Buffer.from('{}'),
      truncated: false,
      url: request.url,
    };
  };
  const make = (idempotencyKey?: (position: number) => string) =>
    createHttpRequestTool(
      {
        send,
        vault: createSecretsVault({} as Pool, undefined),
        allowPrivateNetworks: true,
      },
      {
        allowedHosts: ['http://127.0.0.1'],
        redactor: NO_SECRETS,
        used: { calls: 0, responseBytes: 0 },
        idempotencyKey,
      },
    );
  const key = (position: number) =>
    deriveIdempotencyKey('job-1', new Date('2026-12-04T09:00:00Z'), position);

  it('is derived from the occurrence and the position', () => {
    expect(key(1)).toMatch(/^[0-9a-f]{64}$/);
    expect(key(1)).not.toBe(key(2));
    expect(deriveIdempotencyKey('job-1', new Date('2026-12-04T09:00:00Z'), 1)).toBe(key(1));
    expect(deriveIdempotencyKey('job-1', new Date('2026-12-05T09:00:00Z'), 1)).not.toBe(key(1));
  });

  it('goes with a request with side effects, at its position; the model’s own wins', async () => {
    sent.length = 0;
    const tool = make(key);
    const url = 'http://127.0.0.1/x';
    await tool.run({ method: 'POST', url }, { ...context, position: 3 });
    await tool.run({ method: 'GET', url }, { ...context, position: 4 });
    await tool.run(
      { method: 'DELETE', url, headers: { 'IDEMPOTENCY-KEY': 'mine' } },
      { ...context, position: 5 },
    );
    expect(sent).toEqual([{ 'Idempotency-Key': key(3) }, {}, { 'IDEMPOTENCY-KEY': 'mine' }]);
  });

  it('is not sent in chat, which has no occurrence', async () => {
    sent.length = 0;
    await make().run({ method: 'POST', url: 'http://127.0.0.1/x' }, { ...context, position: 1 });
    expect(sent).toEqual([{}]);
  });
});
