// A job's change as the audit log names it, the same for the REST API and the agent's tool.
import type { JobView } from './view.js';
import { diffFields, type AuditChange } from '../domain/audit.js';

/** The action (`job.pause`, `job.resume` or `job.update`) and the fields that changed. */
export function describeJobChange(
  before: JobView,
  after: JobView,
): { action: string; change: AuditChange | null } {
  const change = diffFields(
    before as unknown as Record<string, unknown>,
    after as unknown as Record<string, unknown>,
  );
  const action =
    before.enabled && !after.enabled
      ? 'job.pause'
      : !before.enabled && after.enabled
        ? 'job.resume'
        : 'job.update';
  return { action, change };
}
