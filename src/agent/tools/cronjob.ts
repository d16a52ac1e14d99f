import { z } from 'zod';
import * as jobs from '../../jobs/commands.js';
import type { JobView, RunView } from '../../jobs/view.js';
import { TOOL_ARGS, TOOL_PARAMETERS, toolInputOf } from '../../jobs/field-lists.js';
import * as webhooks from '../../webhooks/endpoints.js';
import { truncateText } from '../loop.js';
import type { AgentTool, ToolAccess, ToolContext } from '../tool.js';
import type { AuditChange } from '../../domain/audit.js';
import type { Scope } from '../../domain/scopes.js';
import { describeJobChange } from '../../jobs/audit-change.js';

// Prompts may be 16 KB and run results 4 KB: a listing of them would fill the model's context.
// The model sees their beginning; the REST API has the whole text.
const SHOWN_TEXT_BYTES = 500;

const ACTIONS = [
  'create',
  'list',
  'get',
  'update',
  'delete',
  'enable',
  'disable',
  'list_runs',
  'run_now',
  'list_webhooks',
  'attach_webhook',
] as const;

const DESCRIPTION = `Manage this tenant's scheduled (cron) jobs. Each job runs its prompt through the agent at every occurrence of its schedule, and every run is recorded.
Actions: create (name, schedule, prompt, optional timezone, skills, previous_result), list, get (id), update (id plus any of name, schedule, timezone, prompt, skills, previous_result), delete (id), enable (id), disable (id), list_runs (id, optional limit), run_now (id), list_webhooks (the tenant's webhook endpoints), attach_webhook (id of the job, webhook_id: that endpoint then receives only this job's runs).
Schedule syntax:
- 5 fields "minute hour day-of-month month day-of-week": "* * * * *" every minute, "*/15 * * * *" every 15 minutes, "0 9 * * MON-FRI" 09:00 on weekdays, "30 18 L * *" 18:30 on the last day of the month, "0 8 * * 1#1" 08:00 on the first Monday.
- 6 fields with seconds first: "*/30 * * * * *" every 30 seconds.
- Macros: @hourly, @daily, @weekly, @monthly, @yearly; intervals: "@every 90s", "@every 2h30m".
Times are in the job's timezone (an IANA name such as "Europe/Paris"; default UTC).
The prompt is what the agent will be asked at each run, e.g. "Reply with the current time".
In a run, the agent can use the tenant's skills, and http_request when the tenant has an allow-list.
Run controls (create and update; null clears one): labels (string pairs, e.g. {"team":"ops"}; list filters with label "team=ops" or "team"), timeout (Go duration such as "30s"), model (one of the offered models), pause_after_failures (pause after N failed runs in a row), ends_at (RFC 3339: no run after it), max_runs (stop after N runs), jitter (start each run up to this long after its time, e.g. "2m"), retry ({"max_attempts": 3, "backoff": "30s"}: a run that fails because the model was unreachable, throttled or erring, timed out, or lost its pod runs again after 30s, 60s...; not after a side-effect call such as a POST http_request or a cronjob change unless "after_side_effects": true), overlap (when a run comes while the previous one is still going: "skip" (default), "buffer_one" runs it once right after, "allow_all" runs both, "cancel_other" stops the old one; run_now follows it too). disable takes an optional paused_reason; list_runs an optional status (success, failed, running).
Results come back as JSON; on {"ok":false} read the error message, fix the arguments and try again.`;

const Args = z.object({
  action: z.enum(ACTIONS),
  id: z.string().optional(),
  // The job's fields the tool offers (src/jobs/fields.ts), checked by the job rules like the REST
  // fields.
  ...TOOL_ARGS,
  command: z.string().optional(),
  limit: z.number().int().optional(),
  webhook_id: z.string().optional(),
  paused_reason: z.string().optional(),
  label: z.string().optional(),
  status: z.enum(['queued', 'claimed', 'running', 'success', 'failed']).optional(),
});
type Args = z.infer<typeof Args>;

/** The scope each action needs: the same as its REST route's (src/http/routes/). */
const ACTION_SCOPES: Record<(typeof ACTIONS)[number], Scope> = {
  create: 'jobs:write',
  list: 'jobs:read',
  get: 'jobs:read',
  update: 'jobs:write',
  delete: 'jobs:write',
  enable: 'jobs:write',
  disable: 'jobs:write',
  list_runs: 'runs:read',
  run_now: 'runs:write',
  list_webhooks: 'integrations:read',
  attach_webhook: 'integrations:write',
};

/** The job fields the arguments give, prompt or its alias command among them. */
function jobInputOf(args: Args): jobs.JobPatch {
  const input = toolInputOf(args) as jobs.JobPatch;
  const prompt = input.prompt ?? args.command;
  return prompt === undefined ? input : { ...input, prompt };
}

/** The agent's cronjob tool: the same job rules as the REST API, scoped to the caller's tenant. */
export function createCronjobTool(deps: jobs.TriggerDeps, access?: ToolAccess): AgentTool {
  return {
    definition: {
      type: 'function',
      function: {
        name: 'cronjob',
        description: DESCRIPTION,
        parameters: {
          type: 'object',
          properties: {
            action: { type: 'string', enum: [...ACTIONS] },
            id: {
              type: 'string',
              description: 'job id (get, update, delete, enable, disable, list_runs, run_now)',
            },
            ...TOOL_PARAMETERS,
            command: { type: 'string', description: 'alias of prompt' },
            limit: { type: 'integer', description: 'how many items to list (1-100)' },
            paused_reason: { type: 'string', description: 'with disable: why' },
            label: { type: 'string', description: 'with list: "key=value" or "key"' },
            status: { type: 'string', enum: ['queued', 'claimed', 'running', 'success', 'failed'] },
            webhook_id: { type: 'string', description: 'webhook endpoint id (attach_webhook)' },
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
      const needed = ACTION_SCOPES[parsed.data.action];
      if (access && !access.scopes.includes(needed)) {
        return failure(
          'insufficient_scope',
          `this request needs the scope ${needed}: the caller's key or role cannot ${parsed.data.action}`,
        );
      }
      try {
        return JSON.stringify({
          ok: true,
          ...(await perform(deps, context, parsed.data, access)),
        });
      } catch (err) {
        if (err instanceof jobs.CommandError) return failure(err.code, err.message);
        throw err;
      }
    },
  };
}

async function perform(
  deps: jobs.TriggerDeps,
  context: ToolContext,
  args: Args,
  access: ToolAccess | undefined,
): Promise<object> {
  const { tenantId } = context;
  const changed = (what: string) => context.changes?.push(what);
  const audit = (
    action: string,
    targetType: string,
    targetId: string,
    change: AuditChange | null = null,
  ) => access?.audit({ action, targetType, targetId, change });
  const auditJob = async (before: JobView, after: JobView) => {
    const described = describeJobChange(before, after);
    await access?.audit({
      action: described.action,
      targetType: 'job',
      targetId: after.id,
      change: described.change,
    });
  };
  const input = jobInputOf(args);
  const id = () => {
    if (!args.id)
      throw new jobs.CommandError('missing_id', `action ${args.action} needs the job id`, 400);
    return args.id;
  };
  switch (args.action) {
    case 'create': {
      const { name, schedule, prompt } = input;
      const missing = [!name && 'name', !schedule && 'schedule', !prompt && 'prompt'];
      if (missing.some(Boolean)) {
        throw new jobs.CommandError(
          'missing_fields',
          `create needs ${missing.filter(Boolean).join(', ')}`,
          400,
        );
      }
      const job = await jobs.createJob(deps, tenantId, {
        ...input,
        name: name as string,
        schedule: schedule as string,
        prompt: prompt as string,
      });
      changed(`created job "${job.name}" (id ${job.id}, schedule ${job.schedule})`);
      await audit('job.create', 'job', job.id, { after: { ...job } });
      return { job: shownJob(job) };
    }
    case 'list': {
      const page = await jobs.listJobs(deps, tenantId, {
        limit: args.limit ?? 20,
        label: args.label,
      });
      return { ...page, data: page.data.map(shownJob) };
    }
    case 'get':
      return { job: shownJob(await jobs.getJob(deps, tenantId, id())) };
    case 'update': {
      const before = await jobs.getJob(deps, tenantId, id());
      const job = await jobs.updateJob(deps, tenantId, id(), input);
      changed(`updated job "${job.name}" (id ${job.id})`);
      await auditJob(before, job);
      return { job: shownJob(job) };
    }
    case 'delete':
      await jobs.deleteJob(deps, tenantId, id());
      changed(`deleted job ${id()}`);
      await audit('job.delete', 'job', id());
      return { deleted: args.id };
    case 'enable':
    case 'disable': {
      const enabled = args.action === 'enable';
      const reason = enabled ? {} : { paused_reason: args.paused_reason };
      const before = await jobs.getJob(deps, tenantId, id());
      const job = await jobs.updateJob(deps, tenantId, id(), { enabled, ...reason });
      changed(`${args.action}d job "${job.name}" (id ${job.id})`);
      await auditJob(before, job);
      return { job: shownJob(job) };
    }
    case 'list_runs': {
      const page = await jobs.listRuns(deps, tenantId, id(), {
        limit: args.limit ?? 10,
        ...(args.status ? { status: args.status } : {}),
      });
      return { ...page, data: page.data.map(shownRun) };
    }
    case 'run_now': {
      // The same rules as POST /v1/cron-jobs/{id}/trigger: a running scheduler, the cooldown.
      const triggered = await jobs.triggerJob(deps, tenantId, id());
      changed(`started a run of job ${triggered.job_id}`);
      await audit('job.trigger', 'job', triggered.job_id);
      return { triggered };
    }
    case 'list_webhooks':
      return webhooks.listEndpoints(deps, tenantId, { limit: args.limit ?? 20 });
    case 'attach_webhook': {
      if (!args.webhook_id) {
        throw new jobs.CommandError('missing_id', 'attach_webhook needs webhook_id', 400);
      }
      const endpoint = await webhooks.attachJob(deps, tenantId, args.webhook_id, id());
      changed(`attached job ${id()} to webhook ${endpoint.id}`);
      await audit('webhook.update', 'webhook', endpoint.id, { after: { job_id: id() } });
      return { webhook: endpoint };
    }
  }
}

function shownJob(job: JobView): JobView {
  return { ...job, prompt: truncateText(job.prompt, SHOWN_TEXT_BYTES) };
}

function shownRun(run: RunView): RunView {
  const cut = (text: string | null) =>
    text === null ? null : truncateText(text, SHOWN_TEXT_BYTES);
  return { ...run, result: cut(run.result), error: cut(run.error) };
}

function failure(code: string, message: string): string {
  return JSON.stringify({ ok: false, error: { code, message } });
}
