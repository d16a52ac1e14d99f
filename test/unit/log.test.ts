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
