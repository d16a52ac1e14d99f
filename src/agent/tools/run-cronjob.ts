// The cronjob tool of a scheduled run: the job may look at itself and its own runs, and pause
// itself. It cannot create, change or delete jobs, nor touch any other job, so a scheduled prompt
// cannot multiply itself or reach the tenant's other jobs.
import { z } from 'zod';
import { appendAuditEntry } from '../../db/audit-log.js';
import * as jobs from '../../jobs/commands.js';
import { describeJobChange } from '../../jobs/audit-change.js';
import type { RunView } from '../../jobs/view.js';
import { truncateText } from '../loop.js';
import type { AgentTool } from '../tool.js';

const SHOWN_TEXT_BYTES = 500;
const ACTIONS = ['get', 'list_runs', 'pause'] as const;

const Args = z.object({
  action: z.enum(ACTIONS),
  id: z.string().optional(),
  limit: z.number().int().min(1).max(20).optional(),
});

export function createRunCronjobTool(deps: jobs.CommandDeps, jobId: string): AgentTool {
  return {
    definition: {
      type: 'function',
      function: {
        name: 'cronjob',
        description: `This scheduled job itself (id ${jobId}). Actions: get (its definition), list_runs (its latest runs, optional limit 1-20), pause (disable it: no further runs until someone enables it again; say why in your answer). Other jobs cannot be seen or changed from a scheduled run.`,
        parameters: {
          type: 'object',
          properties: {
            action: { type: 'string', enum: [...ACTIONS] },
            limit: { type: 'integer', description: 'runs to list (1-20)' },
          },
          required: ['action'],
        },
      },
    },
    async run(raw, context) {
      const parsed = Args.safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return failure(
          'invalid_arguments',
          `${issue?.path.join('.') || 'arguments'}: ${issue?.message ?? 'invalid'}`,
        );
      }
      const args = parsed.data;
      if (args.id !== undefined && args.id !== jobId) {
        context.report?.({ status: 'refused', error: 'another job' });
        return failure('forbidden', 'a scheduled run may only read and pause its own job');
      }
      try {
        switch (args.action) {
          case 'get': {
            const job = await jobs.getJob(deps, context.tenantId, jobId);
            return ok({ job: { ...job, prompt: truncateText(job.prompt, SHOWN_TEXT_BYTES) } });
          }
          case 'list_runs': {
            const page = await jobs.listRuns(deps, context.tenantId, jobId, {
              limit: args.limit ?? 5,
            });
            return ok({ data: page.data.map(shownRun) });
          }
          case 'pause': {
            const before = await jobs.getJob(deps, context.tenantId, jobId);
            const job = await jobs.updateJob(deps, context.tenantId, jobId, { enabled: false });
            context.changes?.push(`paused job "${job.name}" (id ${job.id})`);
            // No one called: the system made this change, at its run's prompt.
            const { action, change } = describeJobChange(before, job);
            await appendAuditEntry(deps.pool, {
              tenantId: context.tenantId,
              actor: { type: 'system', reason: 'the agent of a scheduled run' },
              sourceAddress: null,
              requestId: null,
              action,
              targetType: 'job',
              targetId: jobId,
              change,
            });
            return ok({ job: { id: job.id, name: job.name, enabled: job.enabled } });
          }
        }
      } catch (err) {
        if (err instanceof jobs.CommandError) return failure(err.code, err.message);
        throw err;
      }
    },
  };
}

function shownRun(run: RunView): RunView {
  const cut = (text: string | null) =>
    text === null ? null : truncateText(text, SHOWN_TEXT_BYTES);
  return { ...run, result: cut(run.result), error: cut(run.error) };
}

const ok = (value: object) => JSON.stringify({ ok: true, ...value });

function failure(code: string, message: string): string {
  return JSON.stringify({ ok: false, error: { code, message } });
}
