import { describe, expect, it } from 'vitest';
import type { AgentTool } from '../../src/agent/tool.js';
import { createClockTool } from '../../src/agent/tools/clock.js';

const context = { tenantId: 't', signal: new AbortController().signal };
const NOW = new Date('2026-12-04T09:45:30.000Z');
const OCCURRENCE = new Date('2026-12-04T09:00:00.000Z');

const ask = async (tool: AgentTool, args: unknown) =>
  JSON.parse(await tool.run(args, context)) as Record<string, unknown>;

describe('the clock tool', () => {
  it("answers now in UTC and in the run's zone, and the occurrence's nominal time", async () => {
    const clock = createClockTool({
      now: () => NOW,
      timezone: 'Europe/Paris',
      occurrence: OCCURRENCE,
    });
    expect(await ask(clock, {})).toEqual({
      ok: true,
      timezone: 'Europe/Paris',
      now: {
        utc: '2026-12-04T09:45:30.000Z',
        local: '2026-12-04T10:45:30+01:00',
        weekday: 'Friday',
      },
      occurrence: {
        utc: '2026-12-04T09:00:00.000Z',
        local: '2026-12-04T10:00:00+01:00',
        weekday: 'Friday',
      },
    });
    expect(clock.definition.function.description).toContain('occurrence');
  });

  it('answers in the zone the model names, across a date line and at offset zero', async () => {
    const clock = createClockTool({ now: () => NOW, timezone: 'UTC', occurrence: OCCURRENCE });
    expect(await ask(clock, { timezone: 'Pacific/Kiritimati' })).toMatchObject({
      timezone: 'Pacific/Kiritimati',
      now: { local: '2026-12-04T23:45:30+14:00', weekday: 'Friday' },
    });
    expect(await ask(clock, { timezone: 'America/Los_Angeles' })).toMatchObject({
      now: { local: '2026-12-04T01:45:30-08:00' },
      occurrence: { local: '2026-12-04T01:00:00-08:00', weekday: 'Friday' },
    });
    expect(await ask(clock, { timezone: 'Asia/Kolkata' })).toMatchObject({
      now: { local: '2026-12-04T15:15:30+05:30' },
    });
    expect(await ask(clock, { timezone: 'Europe/London' })).toMatchObject({
      now: { local: '2026-12-04T09:45:30+00:00' },
    });
  });

  it('has no occurrence in chat, where the default zone is UTC', async () => {
    const clock = createClockTool({ now: () => NOW, timezone: 'UTC' });
    expect(await ask(clock, undefined)).toEqual({
      ok: true,
      timezone: 'UTC',
      now: {
        utc: '2026-12-04T09:45:30.000Z',
        local: '2026-12-04T09:45:30+00:00',
        weekday: 'Friday',
      },
    });
    expect(clock.definition.function.description).not.toContain('occurrence');
  });

  it('answers a bad zone with a clear error the model can act on', async () => {
    const clock = createClockTool({ now: () => NOW, timezone: 'UTC' });
    expect(await ask(clock, { timezone: 'Mars/Olympus_Mons' })).toEqual({
      ok: false,
      error: {
        code: 'unknown_timezone',
        message:
          'unknown time zone "Mars/Olympus_Mons": use an IANA name such as "Europe/Paris", "America/New_York" or "UTC"',
      },
    });
    expect(await ask(clock, { timezone: 42 })).toMatchObject({
      ok: false,
      error: { code: 'invalid_arguments' },
    });
  });
});
