import { describe, expect, it } from 'vitest';
import { ToolLimitError, type AgentTool } from '../../src/agent/tool.js';
import { auditTools, type ToolCallRecord } from '../../src/agent/tools/audit.js';
import { createRedactor } from '../../src/secrets/redact.js';
import { parseSkillDocument } from '../../src/skills/skill-document.js';

const tool = (name: string, run: AgentTool['run']): AgentTool => ({
  definition: { type: 'function', function: { name, parameters: { type: 'object' } } },
  run,
});

describe('the tool-call audit', () => {
  const redactor = createRedactor([{ name: 'TOKEN', value: 'tok-secret-1234' }]);
  const context = { tenantId: 't', signal: new AbortController().signal };

  it('records outcome, redacted arguments and result bytes, and redacts the result', async () => {
    const records: ToolCallRecord[] = [];
    let clock = 0;
    const [ok, failing, limited, reporting] = auditTools(
      [
        tool('echo', async (args) => {
          clock += 7;
          return `got ${JSON.stringify(args)}`;
        }),
        tool('fails', async () =>
          JSON.stringify({ ok: false, error: { code: 'x', message: 'no tok-secret-1234' } }),
        ),
        tool('limited', async () => {
          throw new ToolLimitError('too many');
        }),
        tool('reports', async (_args, ctx) => {
          ctx.report?.({ status: 'refused', error: 'host', httpStatus: 403, requestBytes: 5 });
          return 'refused';
        }),
      ],
      { redactor, record: async (r) => void records.push(r), now: () => clock },
    );
    expect(await ok!.run({ header: 'Bearer tok-secret-1234' }, context)).toBe(
      'got {"header":"Bearer [REDACTED:TOKEN]"}',
    );
    await failing!.run({}, context);
    await expect(limited!.run({}, context)).rejects.toThrow(ToolLimitError);
    await reporting!.run({}, context);
    expect(records.map((r) => [r.seq, r.tool, r.status, r.error, r.httpStatus])).toEqual([
      [1, 'echo', 'ok', null, null],
      [2, 'fails', 'error', 'no [REDACTED:TOKEN]', null],
      [3, 'limited', 'limit', 'too many', null],
      [4, 'reports', 'refused', 'host', 403],
    ]);
    expect(records[0]).toMatchObject({
      arguments: { header: 'Bearer [REDACTED:TOKEN]' },
      durationMs: 7,
    });
  });

  it('keeps at most 8 KB of arguments', async () => {
    const records: ToolCallRecord[] = [];
    const [big] = auditTools([tool('big', async () => 'ok')], {
      redactor,
      record: async (r) => void records.push(r),
    });
    await big!.run({ body: 'x'.repeat(100_000) }, context);
    expect(Buffer.byteLength(JSON.stringify(records[0]!.arguments))).toBeLessThanOrEqual(8 * 1024);
    expect(JSON.stringify(records[0]!.arguments)).toContain('truncated from 100000 bytes');
  });
});

describe('SKILL.md front matter', () => {
  it('refuses an alias bomb', () => {
    const bomb = [
      '---',
      'a: &a ["x","x","x","x","x","x","x","x","x"]',
      'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
      'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
      'd: [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
      'name: bomb',
      'description: boom',
      '---',
      '',
    ].join('\n');
    expect(() => parseSkillDocument(bomb)).toThrow('not valid YAML');
  });

  it('reads name, description and the body', () => {
    expect(parseSkillDocument('---\nname: a-b\ndescription: "Use it"\n---\n# Body\n')).toEqual({
      name: 'a-b',
      description: 'Use it',
      body: '# Body\n',
    });
  });
});
