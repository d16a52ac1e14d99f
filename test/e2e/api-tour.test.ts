// Runs the curl tour of docs/api.md, as written, against a real `hermesx saas-api` process with
// real curl, and checks every answer: if the page and the API drift apart, this fails.
//
// The rule: every ```sh block of docs/api.md that calls curl runs, in order, in one bash session
// (so variables carry over), with URL, ADMIN and KEY set as `hermesx dev` would print them. The
// ```json block after a command shows its answer; the real answer must have the same shape and
// the same values except for ids, timestamps and keys.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { findFreePort } from '../../src/dev/processes.js';
import { createTestDatabase } from '../helpers/database.js';
import { cliEnv, REPO_ROOT, spawnCli, type CliProcess } from '../helpers/process-cli.js';
import { waitFor } from '../helpers/process-wait.js';

const DOC = path.join(REPO_ROOT, 'docs/api.md');
const ADMIN = 'tour-admin-token-7c1e9a-0123456789abcdef';
const DEFAULT_KEY = 'tour-default-tenant-key-3b8d2f-0123456789';

/** What each curl call of the tour must be and answer, in order. */
const EXPECTED_CALLS: { method: string; path: RegExp; status: number }[] = [
  { method: 'POST', path: /^\/v1\/tenants$/, status: 201 },
  { method: 'POST', path: /^\/v1\/api-keys$/, status: 201 },
  { method: 'POST', path: /^\/v1\/cron-jobs$/, status: 201 },
  { method: 'GET', path: /^\/v1\/cron-jobs\?limit=20$/, status: 200 },
  { method: 'POST', path: /^\/v1\/cron-jobs\/preview$/, status: 200 },
  { method: 'GET', path: /^\/v1\/cron-jobs\/[0-9a-f-]{36}\/runs$/, status: 200 },
  { method: 'POST', path: /^\/v1\/cron-jobs\/[0-9a-f-]{36}\/trigger$/, status: 202 },
  { method: 'POST', path: /^\/v1\/webhooks$/, status: 201 },
];

interface Block {
  lang: string;
  body: string;
}

/** Fenced code blocks of a Markdown text, in order. */
function codeBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const fence = /^```([^\n`]*)\n([\s\S]*?)^```\s*$/gm;
  for (const match of markdown.matchAll(fence)) {
    blocks.push({ lang: (match[1] ?? '').trim().split(/\s+/)[0] ?? '', body: match[2] ?? '' });
  }
  return blocks;
}

interface TourStep {
  script: string;
  example: unknown;
}

/** The runnable blocks, each with the JSON example that follows it (if any). */
function tourSteps(markdown: string): TourStep[] {
  const blocks = codeBlocks(markdown);
  const steps: TourStep[] = [];
  blocks.forEach((block, i) => {
    if (block.lang !== 'sh' || !/\bcurl\b/.test(block.body)) return;
    const next = blocks[i + 1];
    const example = next?.lang === 'json' ? (JSON.parse(next.body) as unknown) : undefined;
    steps.push({ script: block.body, example });
  });
  return steps;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * The differences between a real answer and the page's example: same keys and types everywhere;
 * ids, timestamps and keys only need the same format, everything else the same value.
 */
function differences(actual: unknown, example: unknown, at = '$'): string[] {
  if (example === null || typeof example !== 'object') {
    if (typeof example === 'string' && typeof actual === 'string') {
      if (UUID.test(example)) return UUID.test(actual) ? [] : [`${at}: ${actual} is no UUID`];
      if (ISO.test(example) && at !== '$.next' && !at.startsWith('$.next[')) {
        return ISO.test(actual) ? [] : [`${at}: ${actual} is no timestamp`];
      }
      if (/^hk_/.test(example)) return /^hk_/.test(actual) ? [] : [`${at}: ${actual} is no key`];
    }
    return Object.is(actual, example)
      ? []
      : [`${at}: ${JSON.stringify(actual)} ≠ ${JSON.stringify(example)}`];
  }
  if (Array.isArray(example)) {
    if (!Array.isArray(actual)) return [`${at}: not an array`];
    if (actual.length !== example.length) {
      return [`${at}: ${actual.length} items, the page shows ${example.length}`];
    }
    return example.flatMap((item, i) => differences(actual[i], item, `${at}[${i}]`));
  }
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) {
    return [`${at}: not an object`];
  }
  const a = actual as Record<string, unknown>;
  const e = example as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(a), ...Object.keys(e)])];
  return keys.flatMap((key) => {
    if (!(key in a)) return [`${at}.${key}: missing from the answer`];
    if (!(key in e)) return [`${at}.${key}: not shown on the page`];
    // The next fire time depends on today's date.
    if (key === 'next_run_at') {
      return typeof a[key] === 'string' && ISO.test(a[key]) ? [] : [`${at}.${key}: no timestamp`];
    }
    // A webhook's signing secret is random: its form is what the page promises.
    if (key === 'secret') {
      const form = /^whsec_[A-Za-z0-9+/]+=*$/;
      return typeof a[key] === 'string' && form.test(a[key])
        ? []
        : [`${at}.${key}: no whsec_ secret`];
    }
    return differences(a[key], e[key], `${at}.${key}`);
  });
}

/** A bash function standing in for curl: runs the real one and logs status, method, URL and body. */
const CURL_RECORDER = `
curl() {
  local out meta
  out=$(command curl -w '\\n%{http_code} %{method} %{url_effective}' "$@"; printf x)
  out=\${out%x}
  meta=\${out##*$'\\n'}
  out=\${out%$'\\n'*}
  jq -cn --arg meta "$meta" --arg body "$out" '{meta: $meta, body: $body}' >> "$TOUR_LOG"
  printf '%s' "$out"
}
`;

interface RecordedCall {
  block: number;
  status: number;
  method: string;
  url: string;
  body: string;
}

function runBash(
  script: string,
  env: NodeJS.ProcessEnv,
): Promise<{ stdout: string; stderr: string; code: number }> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-c', script],
      { env, cwd: REPO_ROOT, timeout: 60_000, maxBuffer: 10 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ stdout, stderr, code });
      },
    );
  });
}

describe('docs/api.md curl tour against a real saas-api', () => {
  let server: CliProcess;
  let url: string;
  let workDir: string;

  beforeAll(async () => {
    const port = await findFreePort();
    const unusedLlmPort = await findFreePort();
    url = `http://127.0.0.1:${port}`;
    server = spawnCli(
      ['saas-api'],
      cliEnv({
        DATABASE_URL: await createTestDatabase(),
        REDIS_URL: inject('redisUrl'),
        HERMES_ACP_TOKEN: ADMIN,
        HERMES_API_KEY: DEFAULT_KEY,
        SAAS_API_PORT: String(port),
        LLM_API_URL: `http://127.0.0.1:${unusedLlmPort}/v1`,
      }),
    );
    // Triggers need a running scheduler, so wait for it, not only for the HTTP server.
    await waitFor(
      () => {
        if (server.child.exitCode !== null) {
          throw new Error(`saas-api exited early: ${server.stderr()}${server.stdout()}`);
        }
        const output = server.stdout() + server.stderr();
        if (!output.includes('msg="scheduler started"')) throw new Error('scheduler not started');
        if (!output.includes('http server listening')) throw new Error('not listening');
      },
      { timeoutMs: 60_000, intervalMs: 100, what: 'saas-api to start' },
    );
    workDir = mkdtempSync(path.join(os.tmpdir(), 'hermesx-tour-'));
  });

  afterAll(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) {
      process.kill(server.pid, 'SIGTERM');
      try {
        await server.waitForExit(20_000);
      } catch {
        await server.kill();
      }
    }
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it('every request of the tour answers as the page says', async () => {
    const steps = tourSteps(readFileSync(DOC, 'utf8'));
    expect(steps.length, 'runnable curl blocks in docs/api.md').toBe(EXPECTED_CALLS.length);

    const log = path.join(workDir, 'calls.jsonl');
    writeFileSync(log, '');
    const script = [
      'set -eo pipefail',
      CURL_RECORDER,
      ...steps.map(
        (step, i) =>
          `printf '%s\\n' '{"block":${i}}' >> "$TOUR_LOG"\n` +
          `printf '\\n$ # tour step ${i + 1}\\n'\n${step.script}`,
      ),
    ].join('\n');
    const result = await runBash(script, {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      URL: url,
      ADMIN,
      KEY: DEFAULT_KEY,
      TOUR_LOG: log,
    });
    if (process.env.HERMESX_TOUR_OUT) writeFileSync(process.env.HERMESX_TOUR_OUT, result.stdout);
    expect(result.code, `bash failed:\n${result.stderr}\n${result.stdout}`).toBe(0);
    expect(result.stderr).toBe('');

    let block = -1;
    const calls: RecordedCall[] = [];
    for (const line of readFileSync(log, 'utf8').split('\n').filter(Boolean)) {
      const entry = JSON.parse(line) as { block?: number; meta?: string; body?: string };
      if (entry.block !== undefined) {
        block = entry.block;
        continue;
      }
      const [status, method, effective] = (entry.meta ?? '').split(' ');
      calls.push({
        block,
        status: Number(status),
        method: method ?? '',
        url: effective ?? '',
        body: entry.body ?? '',
      });
    }

    expect(calls.map((c) => c.block)).toEqual(EXPECTED_CALLS.map((_, i) => i));
    for (const [i, call] of calls.entries()) {
      const expected = EXPECTED_CALLS[i]!;
      const where = `step ${i + 1}: ${call.method} ${call.url} → ${call.status} ${call.body}`;
      expect(call.method, where).toBe(expected.method);
      expect(call.url.startsWith(url), where).toBe(true);
      expect(call.url.slice(url.length), where).toMatch(expected.path);
      expect(call.status, where).toBe(expected.status);
      const example = steps[i]?.example;
      expect(example, `step ${i + 1} has a json example on the page`).toBeDefined();
      expect(differences(JSON.parse(call.body), example), where).toEqual([]);
    }

    // The variables the tour sets up were really used: the job belongs to the new tenant's key.
    const keyAnswer = JSON.parse(calls[1]!.body) as { key: string; tenant_id: string };
    const tenantAnswer = JSON.parse(calls[0]!.body) as { id: string };
    expect(keyAnswer.tenant_id).toBe(tenantAnswer.id);
    const own = await fetch(`${url}/v1/cron-jobs`, {
      headers: { authorization: `Bearer ${keyAnswer.key}` },
    });
    const jobs = (await own.json()) as { data: { id: string }[] };
    expect(jobs.data.map((j) => j.id)).toEqual([(JSON.parse(calls[2]!.body) as { id: string }).id]);
    // …and the default tenant (the key `hermesx dev` prints) does not see it.
    const other = await fetch(`${url}/v1/cron-jobs`, {
      headers: { authorization: `Bearer ${DEFAULT_KEY}` },
    });
    expect(((await other.json()) as { data: unknown[] }).data).toEqual([]);
  });
});
