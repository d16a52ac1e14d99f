import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { capturingLogger } from '../helpers/log.js';

describe('logs', () => {
  it('writes logfmt in the shape of the guide', () => {
    const { log, lines } = capturingLogger('text');
    log.info({ poll_interval: '30s' }, 'scheduler started');
    log.warn('scheduler disabled: redis unavailable');
    expect(lines[0]).toMatch(/^time=\S+ level=INFO msg="scheduler started" poll_interval=30s\n$/);
    expect(lines[1]).toMatch(/ level=WARN msg="scheduler disabled: redis unavailable"\n$/);
  });

  it('quotes values only when needed', () => {
    const { log, lines } = capturingLogger('text');
    log.info({ a: 'plain', b: 'two words', c: 'x=y', d: '', e: 42, f: true }, 'done');
    expect(lines[0]).toContain('msg=done a=plain b="two words" c="x=y" d="" e=42 f=true');
  });

  it('writes one JSON object per line in json format', () => {
    const { log, lines } = capturingLogger('json');
    log.info({ job_id: 'j1' }, 'cron job executed');
    const record = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    expect(record).toMatchObject({ level: 'INFO', msg: 'cron job executed', job_id: 'j1' });
  });

  it.each(['text', 'json'] as const)('never writes secrets (%s)', (format) => {
    const { log, lines } = capturingLogger(format);
    log.info(
      {
        database: 'postgres://hermesx:s3cret-pw@db:5432/hermesx',
        token: 'my-admin-token',
        authorization: 'Bearer hk_abc',
        apiKey: 'hk_live',
        nested: { password: 'p4ss' },
      },
      'connected',
    );
    const out = lines.join('');
    for (const secret of ['s3cret-pw', 'my-admin-token', 'hk_abc', 'hk_live', 'p4ss']) {
      expect(out).not.toContain(secret);
    }
    expect(out).toContain('hermesx:***@db');
  });
});

// The npm logfmt parser, as a log pipeline would use it (CommonJS, no types).
const logfmt = createRequire(import.meta.url)('logfmt') as {
  parse(line: string): Record<string, string | boolean | null>;
};
const CONTROL = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;

describe('logfmt lines parse back', () => {
  it('escapes control characters inside quotes (no raw escape, newline or bidi override)', () => {
    const { log, lines } = capturingLogger('text');
    log.info(
      { a: 'x\u001b[31mred', b: 'two\nlines\ttab', c: '\u202eevil', d: 'del\u007f', e: 'ok' },
      'm\u0007sg',
    );
    const line = lines[0] ?? '';
    expect(line.slice(0, -1)).not.toMatch(CONTROL);
    expect(line).toContain(' msg="m\\u0007sg" ');
    expect(line).toContain(' a="x\\u001b[31mred" b="two\\nlines\\ttab" c="\\u202eevil" ');
    expect(line).toContain(' d="del\\u007f" e=ok\n');
    const parsed = logfmt.parse(line);
    expect(Object.keys(parsed)).toEqual(['time', 'level', 'msg', 'a', 'b', 'c', 'd', 'e']);
    expect(parsed.e).toBe('ok');
  });

  it('round-trips any printable text and never lets a value make up keys', () => {
    const printable = fc.string({ unit: 'binary', maxLength: 40 }).filter((t) => !CONTROL.test(t));
    const anyText = fc.string({ unit: 'binary', maxLength: 40 });
    fc.assert(
      fc.property(printable, anyText, (clean, dirty) => {
        const { log, lines } = capturingLogger('text');
        log.info({ clean, dirty, after: 'end' }, clean);
        const line = lines[0] ?? '';
        expect(line.endsWith('\n')).toBe(true);
        expect(line.slice(0, -1)).not.toMatch(CONTROL);
        const parsed = logfmt.parse(line);
        expect(Object.keys(parsed)).toEqual(['time', 'level', 'msg', 'clean', 'dirty', 'after']);
        // The parser reads a bare true/false as a boolean and a bare empty value as null.
        const text = (value: unknown) => (value === null ? '' : String(value));
        expect(text(parsed.clean)).toBe(clean);
        expect(text(parsed.msg)).toBe(clean);
        expect(parsed.after).toBe('end');
      }),
      { numRuns: 500 },
    );
  });
});
