// A job's jitter: each occurrence starts at an offset in [0, jitter] after its nominal time, the
// same on every pod (a hash of the job id and the nominal instant, no randomness, no clock), so a
// tenant's "every hour at :00" fleet spreads out while scheduled_at stays the nominal time.
import { createHash } from 'node:crypto';

/** The offset in ms, 0 to jitterMs inclusive, of the occurrence of `jobId` at `nominalMs`. */
export function jitterOffsetMs(jobId: string, nominalMs: number, jitterMs: number): number {
  if (!(jitterMs > 0)) return 0;
  const digest = createHash('sha256').update(`${jobId}|${nominalMs}`).digest();
  // 48 bits are exact in a double and far more than any jitter needs.
  return digest.readUIntBE(0, 6) % (Math.floor(jitterMs) + 1);
}
