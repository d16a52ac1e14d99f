// The Idempotency-Key of a scheduled run's call with side effects. It names the call, not the
// attempt: the occurrence (job id and nominal time, which every attempt of the run shares,
// however it was started: the job's retry policy, POST /v1/runs/{id}/retry, adoption after a pod
// died) and the call's position in the attempt. A receiver that honours the header applies a call
// sent again by a later attempt once (docs/agent.md, "At most once per occurrence").
import { createHash } from 'node:crypto';

/** Hex SHA-256 of `hermesx:<job id>:<scheduled_at as ISO 8601 UTC, milliseconds>:<position>`. */
export function deriveIdempotencyKey(jobId: string, scheduledAt: Date, position: number): string {
  return createHash('sha256')
    .update(`hermesx:${jobId}:${scheduledAt.toISOString()}:${position}`)
    .digest('hex');
}
