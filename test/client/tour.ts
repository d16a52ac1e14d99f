// A typed client tour, compiled (never run) by test/unit/openapi-client.test.ts against types that
// openapi-typescript generates from the served /openapi.json. A breaking change to the document
// (a renamed field, a lost status, a new required field) stops this from compiling.
import createClient from 'openapi-fetch';
import type { components, operations, paths } from '../../test-results/openapi-client/hermesx.js';

type CronJob = components['schemas']['CronJob'];
type Run = components['schemas']['Run'];
type ApiError = components['schemas']['Error'];

export async function tour(baseUrl: string, adminToken: string): Promise<string[]> {
  const admin = createClient<paths>({
    baseUrl,
    headers: { authorization: `Bearer ${adminToken}` },
  });
  const seen: string[] = [];

  const tenant = await admin.POST('/v1/tenants', {
    body: { name: 'acme', rate_limit_rpm: 600, max_concurrent_runs: null },
  });
  if (!tenant.data) return failed(tenant.error);
  const key = await admin.POST('/v1/api-keys', { body: { tenant_id: tenant.data.id, name: 'ci' } });
  if (!key.data) return failed(key.error);
  const rawKey: string = key.data.key;

  const api = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${rawKey}` } });
  const created = await api.POST('/v1/cron-jobs', {
    body: {
      name: 'digest',
      schedule: '0 9 * * 1-5',
      timezone: 'Europe/Paris',
      prompt: 'Summarise',
    },
  });
  if (!created.data) return failed(created.error);
  const job: CronJob = created.data;
  const next: string | null = job.next_run_at;
  seen.push(`${job.id} ${next ?? 'never'}`);

  const page = await api.GET('/v1/cron-jobs', { params: { query: { limit: 20 } } });
  for (const each of page.data?.data ?? []) seen.push(each.name);
  const cursor: string | null | undefined = page.data?.next_cursor;
  seen.push(String(cursor));

  const preview = await api.POST('/v1/cron-jobs/preview', {
    body: { schedule: '@daily', count: 3 },
  });
  seen.push(...(preview.data?.next ?? []));

  const runs = await api.GET('/v1/cron-jobs/{id}/runs', {
    params: { path: { id: job.id }, query: { status: 'failed' } },
  });
  for (const run of runs.data?.data ?? []) seen.push(describeRun(run));

  const across = await api.GET('/v1/runs', {
    params: { query: { label: 'team=ops', error_kind: 'timeout' } },
  });
  for (const run of across.data?.data ?? []) seen.push(`${run.job_name} ${describeRun(run)}`);

  const patched = await api.PATCH('/v1/cron-jobs/{id}', {
    params: { path: { id: job.id } },
    body: { enabled: false, paused_reason: 'holiday', labels: { team: 'ops' }, timeout: '30s' },
  });
  seen.push(String(patched.data?.enabled));

  const trigger = await api.POST('/v1/cron-jobs/{id}/trigger', {
    params: { path: { id: job.id } },
  });
  if (trigger.error) seen.push(trigger.error.error.code);
  else seen.push(trigger.data.scheduled_at);

  const deleted = await api.DELETE('/v1/cron-jobs/{id}', { params: { path: { id: job.id } } });
  seen.push(String(deleted.response.status));

  const chat = await api.POST('/v1/chat/completions', {
    body: { messages: [{ role: 'user', content: 'What jobs do I have?' }] },
  });
  // 200 is JSON, or server-sent events (a string) when stream is true.
  if (typeof chat.data === 'object') seen.push(chat.data.choices[0]?.message.content ?? '');

  const ready = await api.GET('/health/ready');
  seen.push(ready.data?.checks.database ?? 'not ready');
  return seen;
}

function describeRun(run: Run): string {
  const status: 'queued' | 'claimed' | 'running' | 'success' | 'failed' = run.status;
  return `${status} ${run.error_kind ?? ''} ${run.attempts ?? 0} ${run.duration_ms ?? ''}`;
}

function failed(error: ApiError | undefined): string[] {
  return [`failed: ${error?.error.code ?? 'unknown'}`];
}

// The operations carry their ids, so clients can name calls after them.
export type CreateJob = operations['createCronJob'];
