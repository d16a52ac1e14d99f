// The model the containers talk to in `npm run verify:docker`: the tests' fake OpenAI-compatible
// server, listening on the Docker bridge gateway (what host.docker.internal resolves to), so
// containers reach it and nothing outside this machine does. It plays the guide's agent (asked
// to create a cron job, it calls the cronjob tool) and answers scheduled runs at once, except
// runs of jobs whose name starts with "slow", which it holds for SLOW_RUN_MS so a run is in
// flight when a container is killed or stopped, and "busy" ones, which take BUSY_RUN_MS.
import {
  cronAgentHandler,
  startFakeLlm,
  type FakeLlm,
  type Handler,
} from '../../../test/helpers/fake-llm.js';

/** The guide's .env points the API at an Ollama on the host: host.docker.internal:11434. */
export const GUIDE_MODEL_PORT = 11434;
export const SLOW_RUN_MS = 120_000;
/** Runs of jobs named "busy…" take this long, so one replica cannot take every occurrence. */
export const BUSY_RUN_MS = 2_000;

const handler: Handler = (body, index) => {
  const messages = (body as { messages?: { role?: string; content?: unknown }[] }).messages ?? [];
  const system = String(messages.find((m) => m.role === 'system')?.content ?? '');
  if (/running the scheduled job "slow/.test(system))
    return { content: 'slow ok', delayMs: SLOW_RUN_MS };
  if (/running the scheduled job "busy/.test(system))
    return { content: 'busy ok', delayMs: BUSY_RUN_MS };
  return cronAgentHandler(body, index);
};

export interface ContainerModel {
  fake: FakeLlm;
  /** LLM_API_URL as the containers must be given it. */
  containerUrl: string;
  port: number;
}

/** Listens on the gateway, on the guide's port when free (so the guide's .env works as is). */
export async function startContainerModel(gateway: string): Promise<ContainerModel> {
  let fake: FakeLlm;
  try {
    fake = await startFakeLlm({ host: gateway, port: GUIDE_MODEL_PORT, handler });
  } catch {
    fake = await startFakeLlm({ host: gateway, port: 0, handler });
  }
  const port = Number(new URL(fake.url).port);
  return { fake, port, containerUrl: `http://host.docker.internal:${port}/v1` };
}
