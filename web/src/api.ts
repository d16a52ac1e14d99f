// The REST API client: bearer token, JSON, and errors as ApiFailure with the API's stable code.

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiFailure';
  }
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

let currentToken: string | null = null;
let onUnauthorized: () => void = () => {};

export function setToken(token: string | null): void {
  currentToken = token;
}

/** Called when the API answers 401 (key revoked, tenant deleted): the app signs out. */
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

export async function api<T>(
  method: Method,
  path: string,
  body?: unknown,
  token: string | null = currentToken,
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? null : JSON.stringify(body),
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    throw new ApiFailure(0, 'network_error', 'the service did not answer; check your connection');
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON (a proxy's error page): reported below with the status.
  }
  if (!response.ok) {
    const error = (parsed as { error?: { code?: string; message?: string } } | undefined)?.error;
    const failure = new ApiFailure(
      response.status,
      error?.code ?? `http_${response.status}`,
      error?.message ?? `the service answered ${response.status}`,
    );
    if (response.status === 401 && token === currentToken && currentToken) onUnauthorized();
    throw failure;
  }
  return parsed as T;
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

export interface Job {
  id: string;
  name: string;
  schedule: string;
  timezone: string;
  prompt: string;
  enabled: boolean;
  next_run_at: string | null;
  last_run_at: string | null;
  last_run_success: boolean | null;
  last_run_error: string | null;
  last_run_error_kind?: string | null;
  run_count: number;
  created_at: string;
  updated_at: string;
  skills?: string[];
  context?: { previous_result: boolean };
  // The run controls (docs/api.md).
  labels?: Record<string, string>;
  paused_reason?: string | null;
  paused_at?: string | null;
  paused_by?: 'user' | 'system' | null;
  pause_after_failures?: number | null;
  consecutive_failures?: number;
  ends_at?: string | null;
  max_runs?: number | null;
  stopped_by?: 'max_runs' | 'pause_after_failures' | 'ends_at' | null;
  timeout?: string | null;
  model?: string | null;
  jitter?: string | null;
  overlap?: 'skip' | 'buffer_one' | 'allow_all' | 'cancel_other';
  retry?: { max_attempts: number; backoff: string; after_side_effects: boolean } | null;
}

/** GET /v1/runs: a run with its job's name and labels. */
export interface RunListItem extends Run {
  job_name: string;
  labels: Record<string, string>;
}

export interface Secret {
  name: string;
  /** The only hosts it may be sent to; absent: any host on the allow-list. */
  allowed_hosts?: string[];
  created_at: string;
  updated_at: string;
}

export interface SkillSummary {
  name: string;
  description: string;
  size_bytes: number;
  created_at: string;
  updated_at: string;
}

export interface Skill extends SkillSummary {
  content: string;
}

export interface AgentSettings {
  http_allowed_hosts: string[];
  updated_at: string | null;
  http_request: {
    offered: boolean;
    calls_per_run: number;
    timeout_ms: number;
    response_bytes_shown: number;
    allow_private_networks: boolean;
  };
}

export interface ToolCall {
  seq: number;
  tool: string;
  arguments: unknown;
  status: 'ok' | 'error' | 'refused' | 'limit';
  error: string | null;
  http_status: number | null;
  duration_ms: number;
  request_bytes: number;
  response_bytes: number;
  created_at: string;
}

export interface Run {
  id: string;
  cron_job_id: string;
  scheduled_at: string;
  started_at: string | null;
  finished_at: string | null;
  status: string;
  result: string | null;
  error: string | null;
  error_kind?: string | null;
  attempts?: number | null;
  duration_ms: number | null;
  pod_id: string | null;
  created_at: string;
  origin?: 'scheduled' | 'manual' | 'catch_up' | 'backfill';
  attempt?: number;
  not_before?: string | null;
  result_bytes?: number | null;
  result_complete?: boolean;
}

/** GET /v1/runs/{id}: the whole run. */
export interface RunDetail extends Run {
  job_name: string;
  origin: 'scheduled' | 'manual' | 'catch_up' | 'backfill';
  attempts: number;
  result_bytes: number | null;
  result_truncated: boolean;
  prompt_sent: { role: string; content: string }[] | null;
  model: string | null;
  usage: { prompt_tokens: number; completion_tokens: number } | null;
  attempt_log: { started_at: string; duration_ms: number | null; outcome: string | null }[];
  timings: {
    scheduled_at: string;
    started_at: string;
    model_called_at: string | null;
    finished_at: string | null;
  };
}

export interface Preview {
  schedule: string;
  timezone: string;
  next: string[];
}

export interface Tenant {
  id: string;
  name: string;
  max_cron_jobs: number;
  min_schedule_interval_seconds: number;
  rate_limit_rpm: number;
  max_concurrent_runs?: number | null;
  created_at: string;
  updated_at: string;
}

export interface ApiKey {
  id: string;
  tenant_id: string;
  name: string;
  key_prefix: string;
  expires_at: string | null;
  revoked_at: string | null;
  created_at: string;
  key?: string;
}

export interface ClusterCounts {
  runs_in_flight: number;
  runs_last_hour: number;
  failures_last_hour: number;
  fire_lag_p99_ms: number | null;
}

export interface ClusterPod extends ClusterCounts {
  pod_id: string;
  state: 'scheduling' | 'live' | 'gone';
  heartbeat_at: string | null;
  last_run_started_at: string | null;
}

export interface Cluster {
  generated_at: string;
  window_seconds: number;
  redis: 'ok' | 'error';
  totals: ClusterCounts & { live_pods: number };
  pods: ClusterPod[];
}

/** Every page of the tenant's jobs (a tenant has at most a few thousand). */
export async function listAllJobs(maxPages = 50): Promise<Job[]> {
  const jobs: Job[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < maxPages; page++) {
    const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const result: Page<Job> = await api<Page<Job>>('GET', `/v1/cron-jobs?limit=100${query}`);
    jobs.push(...result.data);
    cursor = result.next_cursor;
    if (!cursor) break;
  }
  return jobs;
}
