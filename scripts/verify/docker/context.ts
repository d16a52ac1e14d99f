// What every section of `npm run verify:docker` shares: the repository, the report, the compose
// command, the model, the chosen host ports, and small HTTP helpers.
import { run, runOk, type Output, type RunOptions } from './engine.js';
import type { ContainerModel } from './model.js';
import type { StepReport } from './report.js';
import type { Say } from '../harness.js';

export interface HostPorts {
  pg: number;
  redis: number;
  api: number;
  minio: number;
  minioConsole: number;
  lb: number;
  /** The image check's own container. */
  imageCheck: number;
}

export interface Context {
  root: string;
  report: StepReport;
  say: Say;
  /** ['docker', 'compose'] or ['docker-compose']. */
  compose: string[];
  model: ContainerModel;
  ports: HostPorts;
  /** The reduced form (.ci/run): image build, saas stack health, one scheduled run. */
  quick: boolean;
}

/**
 * Compose project names of their own, so a user's stack of the same files (its volumes above all)
 * is never touched by the `down -v` here; the container names, which the guide uses, are fixed
 * in the files and stay the same.
 */
export const PROJECTS: Record<string, string> = {
  'docker-compose.saas.yml': 'hermesx-verify',
  'docker-compose.multi-replica.yml': 'hermesx-verify-mr',
};

/** The guide's `docker compose -f FILE ARGS…` (through docker-compose where v2 is absent). */
export function composeArgs(ctx: Context, file: string, args: string[]): [string, string[]] {
  const [command, ...prefix] = ctx.compose;
  const project = PROJECTS[file];
  return [command as string, [...prefix, ...(project ? ['-p', project] : []), '-f', file, ...args]];
}

export function compose(ctx: Context, file: string, args: string[], options: RunOptions = {}) {
  const [command, full] = composeArgs(ctx, file, args);
  return run(command, full, { timeoutMs: 300_000, ...options });
}

export function composeOk(ctx: Context, file: string, args: string[], options: RunOptions = {}) {
  const [command, full] = composeArgs(ctx, file, args);
  return runOk(command, full, { timeoutMs: 300_000, ...options });
}

/** How a compose command reads in the report: as the guide writes it. */
export function composeLabel(file: string, args: string[]): string {
  return `docker compose -f ${file} ${args.join(' ')}`;
}

export interface HttpAnswer {
  status: number;
  text: string;
  json: unknown;
}

/** One HTTP request (bounded); JSON parsed when it parses. */
export async function http(
  url: string,
  init: { method?: string; token?: string; body?: unknown; timeoutMs?: number } = {},
): Promise<HttpAnswer> {
  const headers: Record<string, string> = {};
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    signal: AbortSignal.timeout(init.timeoutMs ?? 30_000),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json };
}

/** The guide's chat request body (the model name and the message as the guide writes them). */
export function guideChat(message: string) {
  return { model: 'qwen3:30b', messages: [{ role: 'user', content: message }] };
}

export function describe(out: Output): string {
  return `${out.stdout}${out.stderr}`.trim();
}
