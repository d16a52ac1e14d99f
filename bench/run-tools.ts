// The benchmark's BullMQ peer calls the agent runner without the service's dependencies, so its
// model requests carried no tools: 460 bytes against a HermesX scheduled run's 1,542 (its
// `cronjob` and `clock` tools). This wraps the peer's model client so each request carries the
// same two definitions, built by the same functions for the job and occurrence the request
// names. The model server then parses the same requests from both systems. The peer never runs
// the tools: the benchmark's model answers without calling one.
import pg from 'pg';
import type { Llm } from '../src/agent/llm.js';
import { createClockTool } from '../src/agent/tools/clock.js';
import { createRunCronjobTool } from '../src/agent/tools/run-cronjob.js';
import { readOccurrence } from './occurrence-of.js';

export function withRunTools(llm: Llm): Llm {
  // Never connects: the cronjob tool reads the database only when the model calls it.
  const pool = new pg.Pool({ max: 1 });
  const now = () => new Date();
  return {
    model: llm.model,
    complete: (params, signal, options) => {
      const system = params.messages.find((m) => m.role === 'system')?.content;
      const text = typeof system === 'string' ? system : '';
      const found = readOccurrence(text);
      if (!found) return llm.complete(params, signal, options);
      const tools = [
        createRunCronjobTool({ pool, now }, found.jobId).definition,
        createClockTool({ now, timezone: 'UTC', occurrence: new Date(found.iso) }).definition,
      ];
      return llm.complete({ ...params, tools }, signal, options);
    },
  };
}
