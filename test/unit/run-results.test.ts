import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutUtf8, RESULT_INLINE_BYTES, shortResult } from '../../src/domain/result-text.js';
import { jobResultsPrefix, runResultKey } from '../../src/storage/run-results.js';

const TENANT = '0b5f3c3e-1d2a-4c6e-9f00-00000000000a';

describe('cutUtf8', () => {
  it('never cuts a character in half, and keeps the longest prefix that fits', () => {
    expect(cutUtf8('héllo', 2)).toBe('h');
    expect(cutUtf8('héllo', 3)).toBe('hé');
    expect(cutUtf8('€€', 5)).toBe('€');
    expect(cutUtf8('😀x', 3)).toBe('');
    expect(cutUtf8('😀x', 4)).toBe('😀');
    expect(cutUtf8('short', 100)).toBe('short');
  });

  it('holds for any text and bound', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.nat(400), (text, max) => {
        const cut = cutUtf8(text, max);
        const bytes = Buffer.byteLength(cut, 'utf8');
        expect(bytes).toBeLessThanOrEqual(Math.max(max, 0));
        expect(text.startsWith(cut)).toBe(true);
        // One more code point would not fit (or there is none left).
        const rest = [...text.slice(cut.length)];
        if (rest.length > 0) {
          expect(bytes + Buffer.byteLength(rest[0] as string, 'utf8')).toBeGreaterThan(max);
        }
      }),
    );
  });
});

describe('run result keys and short forms', () => {
  it('keys a result under its tenant, job and run, and a job’s results under one prefix', () => {
    const ids = { tenantId: TENANT, jobId: 'job-1', runId: 'run-1' };
    expect(runResultKey(ids)).toBe(`${TENANT}/runs/job-1/run-1.txt`);
    expect(runResultKey(ids).startsWith(jobResultsPrefix(TENANT, 'job-1'))).toBe(true);
    expect(() => runResultKey({ ...ids, tenantId: 'not-a-tenant' })).toThrow(/tenant id/);
    expect(() => runResultKey({ ...ids, jobId: '..' })).toThrow(/invalid object key/);
  });

  it('shortens to 4,096 characters and never more than the inline bytes', () => {
    expect(shortResult('a'.repeat(5000))).toHaveLength(4096);
    const wide = '😀'.repeat(4000);
    expect(Buffer.byteLength(shortResult(wide), 'utf8')).toBeLessThanOrEqual(RESULT_INLINE_BYTES);
    expect(wide.startsWith(shortResult(wide))).toBe(true);
    // 4,096 UTF-16 units would end inside the 2,048th emoji: it is left out whole.
    const odd = `x${'😀'.repeat(3000)}`;
    expect(shortResult(odd)).toBe(`x${'😀'.repeat(2047)}`);
  });
});
