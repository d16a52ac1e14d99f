// The REST API client: bearer token, JSON, and errors as ApiFailure with the API's stable code.
import type { components } from './api.gen';

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
let currentCsrf: string | null = null;
let onUnauthorized: () => void = () => {};

export function setToken(token: string | null): void {
  currentToken = token;
}

/** Signed in by SSO: requests carry the session cookie, and this token when they change state. */
export function setCsrfToken(token: string | null): void {
  currentCsrf = token;
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
  const byCookie = !token && currentCsrf !== null;
  if (byCookie && method !== 'GET') headers['x-csrf-token'] = currentCsrf as string;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? null : JSON.stringify(body),
      // The session cookie goes only with an SSO session, never beside a key.
      credentials: byCookie ? 'same-origin' : 'omit',
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
    if (response.status === 401 && token === currentToken && (currentToken || byCookie)) {
      onUnauthorized();
    }
    throw failure;
  }
  return parsed as T;
}

/** GET /auth/me with the session cookie: the SSO session, or null when there is none. */
export async function fetchMe(): Promise<components['schemas']['SessionMe'] | null> {
  try {
    const response = await fetch('/auth/me', {
      headers: { accept: 'application/json' },
      credentials: 'same-origin',
      cache: 'no-store',
    });
    return response.ok ? ((await response.json()) as components['schemas']['SessionMe']) : null;
  } catch {
    return null;
  }
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

// The API's shapes, generated from /openapi.json (npm run api:types).
type Schemas = components['schemas'];

/** A page of any list: its items and the cursor of the next page. */
export type Page<T> = Omit<Schemas['CronJobPage'], 'data'> & { data: T[] };
export type Job = Schemas['CronJob'];
export type Member = Schemas['Member'];
export type Invitation = Schemas['Invitation'];
export type JobCreate = Schemas['CronJobCreate'];
export type JobPatch = Schemas['CronJobPatch'];
export type Run = Schemas['Run'];
/** GET /v1/runs: a run with its job's name and labels. */
export type RunListItem = Schemas['RunListItem'];
/** GET /v1/runs/{id}: the whole run. */
export type RunDetail = Schemas['RunDetail'];
export type Secret = Schemas['Secret'];
export type McpServer = Schemas['McpServer'];
export type McpServerTest = Schemas['McpServerTest'];
export type SkillSummary = Schemas['SkillSummary'];
export type Skill = Schemas['Skill'];
export type AgentSettings = Schemas['AgentSettings'];
export type ToolCall = Schemas['ToolCall'];
export type Preview = Schemas['SchedulePreview'];
export type Tenant = Schemas['Tenant'];
export type ApiKey = Schemas['ApiKey'];
export type ApiKeyCreated = Schemas['ApiKeyCreated'];
export type Cluster = Schemas['Cluster'];
export type AuditEntry = Schemas['AuditEntry'];
export type AuditPage = Schemas['AuditPage'];
export type UsageReport = Schemas['UsageReport'];
export type UsageBudget = Schemas['UsageBudget'];

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
