// The benchmark's model server: the tests' fake OpenAI-compatible server with a fixed latency,
// plus a control port that reports how many calls each (job, occurrence) received. A scheduled
// run's system message names its job and occurrence (src/agent/cron-runner.ts describeOccurrence;
// the BullMQ worker sends the same message), so duplicates and misses are counted where the work
// actually arrives. Standalone: `node --import tsx bench/model-server.ts --latency-ms 50` prints
// {"url":..., "control":...} on one line and serves until SIGTERM.
//   GET  /calls?from=<ms>&to=<ms>  -> {"total":n,"calls":[[jobId, occurrenceMs, count, firstMs], ...]}
//   POST /reset                    -> forgets every call
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startFakeLlm } from '../test/helpers/fake-llm.js';

interface Tally {
  jobId: string;
  occurrenceMs: number;
  count: number;
  firstMs: number;
}

const JOB_ID = /\(id ([0-9a-f-]{36})\)/;
const OCCURRENCE = /which is (\S+) UTC/;

/** The (job, occurrence) a cron run's request names; undefined for any other request. */
export function occurrenceOf(body: unknown): { jobId: string; occurrenceMs: number } | undefined {
  const messages = (body as { messages?: { role?: string; content?: unknown }[] } | undefined)
    ?.messages;
  const system = messages?.find((m) => m.role === 'system')?.content;
  if (typeof system !== 'string') return undefined;
  const jobId = JOB_ID.exec(system)?.[1];
  const iso = OCCURRENCE.exec(system)?.[1];
  const occurrenceMs = iso ? Date.parse(iso) : NaN;
  if (!jobId || !Number.isFinite(occurrenceMs)) return undefined;
  return { jobId, occurrenceMs };
}

function argValue(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const tallies = new Map<string, Tally>();
  let total = 0;
  let other = 0;
  const fake = await startFakeLlm({
    latencyMs: Number(argValue(args, '--latency-ms') ?? 50),
    handler: (body) => {
      total += 1;
      // The fake keeps every request body; the tally is all the benchmark needs.
      if (fake.calls.length > 1000) fake.calls.splice(0, fake.calls.length - 100);
      const occurrence = occurrenceOf(body);
      if (!occurrence) {
        other += 1;
        return { content: 'ok' };
      }
      const key = `${occurrence.jobId}|${occurrence.occurrenceMs}`;
      const tally = tallies.get(key);
      if (tally) tally.count += 1;
      else tallies.set(key, { ...occurrence, count: 1, firstMs: Date.now() });
      return { content: 'ok' };
    },
  });

  const control = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'POST' && url.pathname === '/reset') {
      tallies.clear();
      total = 0;
      other = 0;
      res.writeHead(204).end();
      return;
    }
    if (req.method === 'GET' && url.pathname === '/calls') {
      const from = Number(url.searchParams.get('from') ?? -Infinity);
      const to = Number(url.searchParams.get('to') ?? Infinity);
      const calls: [string, number, number, number][] = [];
      for (const t of tallies.values()) {
        if (t.occurrenceMs >= from && t.occurrenceMs < to) {
          calls.push([t.jobId, t.occurrenceMs, t.count, t.firstMs]);
        }
      }
      const text = JSON.stringify({ total, other, calls });
      res.writeHead(200, { 'content-type': 'application/json' }).end(text);
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
  await main();
}
