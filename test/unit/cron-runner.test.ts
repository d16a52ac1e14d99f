import { describe, expect, it } from 'vitest';
import { describeOccurrence, formatInZone } from '../../src/agent/cron-runner.js';

describe('formatInZone', () => {
  it('gives the wall time of each instant in each zone, whatever was asked before', () => {
    const winter = new Date('2026-01-15T08:00:00Z');
    const summer = new Date('2026-07-15T08:00:00Z');
    const asked: [Date, string, string][] = [
      [winter, 'Europe/Paris', '2026-01-15 09:00:00 GMT+1'],
      [winter, 'Europe/Paris', '2026-01-15 09:00:00 GMT+1'],
      [summer, 'Europe/Paris', '2026-07-15 10:00:00 GMT+2'],
      [winter, 'America/New_York', '2026-01-15 03:00:00 EST'],
      [winter, 'Europe/Paris', '2026-01-15 09:00:00 GMT+1'],
      [summer, 'UTC', '2026-07-15 08:00:00 UTC'],
    ];
    for (const [instant, zone, text] of asked) expect(formatInZone(instant, zone)).toBe(text);
  });

  it('names the job, the tenant and the occurrence in the system message', () => {
    const text = describeOccurrence({
      jobId: 'job-1',
      tenantId: 'tenant-1',
      name: 'digest',
      prompt: 'summarise',
      timezone: 'Europe/Paris',
      scheduledAt: new Date('2026-01-15T08:00:00Z'),
    });
    expect(text).toContain('"digest" (id job-1) for tenant tenant-1');
    expect(text).toContain(
      '2026-01-15 09:00:00 GMT+1 (Europe/Paris), which is 2026-01-15T08:00:00.000Z UTC',
    );
  });
});
