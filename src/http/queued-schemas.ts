import { z } from 'zod';

// Request and response shapes of the queued runs' routes: backfill and retry by hand.

const timestamp = z.iso.datetime({ offset: true });

export const BackfillBody = z
  .strictObject({
    from: timestamp.describe('the range’s start (inclusive), within the tenant’s run retention'),
    to: timestamp.describe('the range’s end (exclusive), not in the future'),
  })
  .meta({ id: 'BackfillRequest' });

export const BackfillAnswer = z
  .object({
    job_id: z.uuid(),
    added: z
      .number()
      .int()
      .min(0)
      .describe('occurrences with no run before, now queued (origin backfill)'),
    skipped: z.number().int().min(0).describe('occurrences that already had a run'),
    scheduled_at: z.array(z.string()).describe('the queued occurrences, oldest first'),
    next_from: z
      .string()
      .nullable()
      .describe(
        'the range holds more than 100 occurrences: send this as the next request’s `from`',
      ),
  })
  .meta({
    id: 'BackfillAnswer',
    examples: [
      {
        job_id: '7d0c5b8e-3f2a-4c1d-9e8b-1a2b3c4d5e6f',
        added: 2,
        skipped: 1,
        scheduled_at: ['2026-03-02T08:00:00.000Z', '2026-03-04T08:00:00.000Z'],
        next_from: null,
      },
    ],
  });
