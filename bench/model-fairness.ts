// Tenant B's model call while tenant A fills the model connection pool with slow calls, with the
// pool handed out first-come (a bare HTTP agent, as before fair queuing) and through the fair gate
// (src/agent/model-gate.ts). In process, against the fake model; no database.
//   node --import tsx bench/model-fairness.ts [--model-ms 40000] [--pool 8] [--flood 16]
import http from 'node:http';
import { parseArgs } from 'node:util';
import { createLlm } from '../src/agent/llm.js';
import { createModelConnections, type ModelConnections } from '../src/agent/model-connections.js';
import { defaultPerTenantConnections } from '../src/agent/model-gate.js';
import { startFakeLlm } from '../test/helpers/fake-llm.js';

const { values } = parseArgs({
  options: {
    'model-ms': { type: 'string', default: '40000' },
    pool: { type: 'string', default: '8' },
    flood: { type: 'string', default: '16' },
  },
});
const modelMs = Number(values['model-ms']);
const poolSize = Number(values.pool);
const flood = Number(values.flood);

const llm = await startFakeLlm();
llm.setHandler((body) =>
  JSON.stringify(body).includes('flood') ? { content: 'slow', delayMs: modelMs } : { content: 'b' },
);

/** The pool as it was: one agent, requests queued first-come for its sockets. */
function firstComePool(): ModelConnections {
  const fair = createModelConnections(llm.url, { maxConnections: poolSize });
  const agent = new http.Agent({ keepAlive: true, maxSockets: poolSize });
  return { agent, gate: fair.gate, open: () => Promise.resolve(() => undefined) };
}

async function measure(name: string, connections: ModelConnections, aShare: number): Promise<void> {
  const client = createLlm(
    { url: llm.url, apiKey: '', model: 'm' },
    { connections, requestTimeoutMs: modelMs * 4 },
  );
  const ask = (tenantId: string, content: string) =>
    client.complete({ messages: [{ role: 'user', content }] }, new AbortController().signal, {
      tenantId,
      deadlineMs: Date.now() + modelMs * 4,
    });
  let started = Date.now();
  await ask('b', 'alone');
  const aloneMs = Date.now() - started;
  const before = llm.calls.length;
  const floodCalls = Array.from({ length: flood }, (_, i) => ask('a', `flood ${i}`));
  // A's calls have taken what they can of the pool.
  await llm.waitForCalls(before + Math.min(flood, aShare), 30_000);
  started = Date.now();
  await ask('b', 'again');
  const underMs = Date.now() - started;
  await Promise.all(floodCalls);
  console.log(
    `${name}: B alone ${aloneMs} ms, under A's flood ${underMs} ms ` +
      `(pool ${poolSize}, A ${flood} calls of ${modelMs} ms)`,
  );
}

try {
  await measure('first-come pool', firstComePool(), poolSize);
  const fair = createModelConnections(llm.url, { maxConnections: poolSize });
  await measure('fair gate', fair, defaultPerTenantConnections(poolSize));
} finally {
  await llm.close();
}
