// Micro-benchmark of tracing's cost per run: the calls a scheduled run makes into src/tracing/
// (claim, the runner's scope, two model calls, one tool call, the record, the end, one webhook
// delivery: 7 spans), with tracing off and with tracing on, exporting over OTLP/HTTP to a
// receiver in another process (so its decoding is not counted). The work itself is empty: what
// is measured is what tracing adds to a run, in CPU time of this process (export included).
// `node --import tsx bench/trace-cost.ts [runs]`
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { traceModelCall, traceToolCall } from '../src/tracing/agent-spans.js';
import { traceDelivery } from '../src/tracing/delivery-span.js';
import { traceJobStore } from '../src/tracing/job-store.js';
import { readTraceSettings, TRACING_OFF } from '../src/tracing/settings.js';
import { Tracing } from '../src/tracing/tracing.js';
import type { JobStore } from '../src/scheduler/ports.js';

const runs = Number(process.argv[2] ?? 20_000);
/** Runs between two flushes: 7 spans each stay under the batch processor's queue of 2048. */
const ROUND = 200;

// The receiver: counts the spans it is sent and says how many when asked.
const RECEIVER = `
const http = require('node:http');
let spans = 0;
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (req.method === 'GET') return res.end(String(spans));
    const body = JSON.parse(Buffer.concat(chunks).toString());
    for (const r of body.resourceSpans ?? []) for (const s of r.scopeSpans ?? []) spans += (s.spans ?? []).length;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
server.listen(0, '127.0.0.1', () => process.send(server.address().port));
`;

const store = {
  claimRun: async () => ({ kind: 'claimed', run: { runId: '', name: 'n', prompt: 'p' } }),
  finishRun: async () => 'recorded',
} as unknown as JobStore;

function uuid(i: number): string {
  const hex = (i + 1).toString(16).padStart(32, '7');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

async function oneRun(tracing: Tracing, traced: JobStore, i: number): Promise<void> {
  const runId = uuid(i);
  (store as { claimRun: unknown }).claimRun = async () => ({
    kind: 'claimed',
    run: { runId, name: 'n', prompt: 'p' },
  });
  await traced.claimRun('job', new Date(0), 'pod', null, 'scheduled');
  const scope = tracing.runs.scopeOf(runId, { 'hermesx.tenant.id': 't' }, (text) => text);
  const answer = { model: 'm', usage: { prompt_tokens: 10, completion_tokens: 5 }, choices: [] };
  await traceModelCall(scope, { messages: [] }, 'm', async () => answer);
  await traceToolCall(scope, 'clock', '{}', async () => '{"ok":true}');
  await traceModelCall(scope, { messages: [] }, 'm', async () => answer);
  const outcome = { success: true, result: 'r', error: null, errorKind: null, attempts: 2 };
  await traced.finishRun(runId, outcome, 'pod');
  const delivery = {
    deliveryId: 'd',
    endpointId: 'e',
    tenantId: 't',
    eventType: 'run.succeeded',
    runId,
  };
  await traceDelivery(tracing, delivery, 1, async () => ({ kind: 'answered', statusCode: 200 }));
}

async function measure(label: string, tracing: Tracing): Promise<number> {
  const traced = traceJobStore(store, tracing.runs);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let start = 0; start < runs; start += ROUND) {
    const round = [];
    for (let i = start; i < Math.min(runs, start + ROUND); i++)
      round.push(oneRun(tracing, traced, i));
    await Promise.all(round);
    await tracing.flush();
  }
  const cpu = process.cpuUsage(cpu0);
  const wallMs = performance.now() - t0;
  const cpuUsPerRun = (cpu.user + cpu.system) / runs;
  console.log(
    `${label}: ${cpuUsPerRun.toFixed(1)} µs CPU per run (${((wallMs / runs) * 1000).toFixed(1)} µs wall), ${runs} runs`,
  );
  return cpuUsPerRun;
}

const child = spawn(process.execPath, ['-e', RECEIVER], {
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const [port] = (await once(child, 'message')) as [number];
const endpoint = `http://127.0.0.1:${port}`;
const results: { off: number[]; on: number[] } = { off: [], on: [] };
for (let pass = 1; pass <= 2; pass++) {
  results.off.push(await measure(`pass ${pass} off`, new Tracing(TRACING_OFF)));
  const on = new Tracing(readTraceSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }));
  results.on.push(await measure(`pass ${pass} on `, on));
  await on.stop();
}
const received = Number(await (await fetch(endpoint)).text());
const best = (values: number[]) => Math.min(...values);
console.log(
  `tracing adds ${(best(results.on) - best(results.off)).toFixed(1)} µs CPU per run (best of 2 each); ` +
    `the receiver got ${received} spans of ${runs * 2 * 7} sent`,
);
child.kill();
