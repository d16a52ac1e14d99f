// The benchmark's model server: the tests' fake OpenAI-compatible server with a fixed latency and
// an optional share of throttled answers, plus a control port that reports how many calls each
// (job, occurrence) received. A scheduled run's system message names its job and occurrence
// (src/agent/cron-runner.ts describeOccurrence; the BullMQ worker sends the same message), so
// duplicates and misses are counted where the work actually arrives. Standalone:
// `node --import tsx bench/model-server.ts --latency-ms 50 [--throttle-rate 0.3] [--seed 1]`
// prints {"url":..., "control":...} on one line and serves until SIGTERM.
//   GET  /calls?from=<ms>&to=<ms>  -> {"total":n,"other":n,"throttled":n,
//                                      "calls":[[jobId, occurrenceMs, answered, firstMs, throttled], ...]}
//   POST /reset                    -> forgets every call
//   POST /settings {"latencyMs":4000,"throttleRate":0.3,"seed":1}  -> the settings now in force
// A throttled request is answered at once with HTTP 429, `Retry-After: 1` and OpenAI's error body;
// it did no work, so it is tallied apart from the answered (200) calls: an occurrence whose only
// requests were throttled counts as a model-call miss, and its retries are not duplicates.
// Which requests are throttled is a hash of (seed, job, attempt within the occurrence), not arrival
// order nor the time of day: the same jobs get the same answers in every run (and in every burst).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startFakeLlm, type FakeReply } from '../test/helpers/fake-llm.js';
import { readOccurrence } from './occurrence-of.js';

interface Tally {
  jobId: string;
  occurrenceMs: number;
  /** Requests answered 200 (the model did the work). */
  count: number;
  /** Requests answered 429. */
  throttled: number;
  /** Arrival of the occurrence's first request, whatever its answer. */
  firstMs: number;
}

export interface ModelSettings {
  latencyMs: number;
  /** Share of requests answered 429, 0..1. */
  throttleRate: number;
  seed: number;
  /** Retry-After of a 429, in seconds. */
  retryAfterS: number;
}

/** The (job, occurrence) a cron run's request names; undefined for any other request. */
export function occurrenceOf(body: unknown): { jobId: string; occurrenceMs: number } | undefined {
  const messages = (body as { messages?: { role?: string; content?: unknown }[] } | undefined)
    ?.messages;
  const system = messages?.find((m) => m.role === 'system')?.content;
  if (typeof system !== 'string') return undefined;
  const found = readOccurrence(system);
  const occurrenceMs = found ? Date.parse(found.iso) : NaN;
  if (!found || !Number.isFinite(occurrenceMs)) return undefined;
  return { jobId: found.jobId, occurrenceMs };
}

/** A uniform number in [0, 1) from a string: FNV-1a, then murmur3's finaliser to spread it. */
export function unitHash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 2 ** 32;
}

/** Whether this attempt (0 for an occurrence's first request) is answered 429. */
export function isThrottled(settings: ModelSettings, key: string, attempt: number): boolean {
  if (settings.throttleRate <= 0) return false;
  return unitHash(`${settings.seed}|${key}|${attempt}`) < settings.throttleRate;
}

/** The 429 OpenAI sends when a request-rate limit is reached. */
export function throttledReply(retryAfterS: number): FakeReply {
  return {
    status: 429,
    headers: { 'Retry-After': String(retryAfterS) },
    errorMessage: 'Rate limit reached for requests',
    errorType: 'requests',
    errorCode: 'rate_limit_exceeded',
  };
}

/** Validates a settings change (from the command line or the control port). */
export function mergeSettings(
  current: ModelSettings,
  change: Partial<ModelSettings>,
): ModelSettings {
  const next = { ...current, ...change };
  const bad = (name: string, rule: string) => new Error(`${name} must be ${rule}`);
  if (!Number.isFinite(next.latencyMs) || next.latencyMs < 0) throw bad('latencyMs', '≥ 0');
  if (!(next.throttleRate >= 0 && next.throttleRate <= 1)) throw bad('throttleRate', '0..1');
  if (!Number.isInteger(next.seed)) throw bad('seed', 'a whole number');
  if (!Number.isInteger(next.retryAfterS) || next.retryAfterS < 0) throw bad('retryAfterS', '≥ 0');
  return next;
}

function argValue(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

function readJson(req: http.IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', reject);
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'));
      } catch {
        reject(new Error('the body is not JSON'));
      }
    });
  });
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  let settings = mergeSettings(
    { latencyMs: 50, throttleRate: 0, seed: 1, retryAfterS: 1 },
    {
      latencyMs: Number(argValue(args, '--latency-ms') ?? 50),
      throttleRate: Number(argValue(args, '--throttle-rate') ?? 0),
      seed: Number(argValue(args, '--seed') ?? 1),
    },
  );
  const tallies = new Map<string, Tally>();
  let total = 0;
  let other = 0;
  let throttled = 0;
  // The fake's own latency stays 0: the handler delays answered calls only (a 429 comes at once).
  const fake = await startFakeLlm({
    latencyMs: 0,
    handler: (body) => {
      total += 1;
      // The fake keeps every request body; the tally is all the benchmark needs.
      if (fake.calls.length > 1000) fake.calls.splice(0, fake.calls.length - 100);
      const occurrence = occurrenceOf(body);
      if (!occurrence) {
        if (isThrottled(settings, 'other', other++)) {
          throttled += 1;
          return throttledReply(settings.retryAfterS);
        }
        return { content: 'ok', delayMs: settings.latencyMs };
      }
      const key = `${occurrence.jobId}|${occurrence.occurrenceMs}`;
      let tally = tallies.get(key);
      if (!tally) {
        tally = { ...occurrence, count: 0, throttled: 0, firstMs: Date.now() };
        tallies.set(key, tally);
      }
      if (isThrottled(settings, occurrence.jobId, tally.count + tally.throttled)) {
        tally.throttled += 1;
        throttled += 1;
        return throttledReply(settings.retryAfterS);
      }
      tally.count += 1;
      return { content: 'ok', delayMs: settings.latencyMs };
    },
  });

  const control = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const json = (status: number, value: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    if (req.method === 'POST' && url.pathname === '/reset') {
      tallies.clear();
      total = 0;
      other = 0;
      throttled = 0;
      res.writeHead(204).end();
      return;
    }
    if (req.method === 'POST' && url.pathname === '/settings') {
      readJson(req).then(
        (change) => {
          try {
            settings = mergeSettings(settings, change as Partial<ModelSettings>);
            json(200, settings);
          } catch (err) {
            json(400, { error: (err as Error).message });
          }
        },
        (err: Error) => json(400, { error: err.message }),
      );
      return;
    }
    if (req.method === 'GET' && url.pathname === '/calls') {
      const from = Number(url.searchParams.get('from') ?? -Infinity);
      const to = Number(url.searchParams.get('to') ?? Infinity);
      const calls: [string, number, number, number, number][] = [];
      for (const t of tallies.values()) {
        if (t.occurrenceMs >= from && t.occurrenceMs < to) {
          calls.push([t.jobId, t.occurrenceMs, t.count, t.firstMs, t.throttled]);
        }
      }
      json(200, { total, other, throttled, calls });
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
  const { port } = control.address() as AddressInfo;
  process.stdout.write(
    `${JSON.stringify({ url: fake.url, control: `http://127.0.0.1:${port}` })}\n`,
  );
  const shutdown = () => {
    control.close();
    void fake.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  // The harness owns this process: when it goes away (stdin closes), so does the server.
  process.stdin.on('end', shutdown);
  process.stdin.resume();
}

if (process.argv[1]?.endsWith('model-server.ts') || process.argv[1]?.endsWith('model-server.js')) {
  await main().catch((err: unknown) => {
    process.stderr.write(`model-server: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  });
}
