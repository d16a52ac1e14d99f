import type { LlmSettings } from './llm.js';

/**
 * Whether the configured model server answers `GET /models`: said once at start (the start log,
 * `hermesx dev`'s banner) and on demand (`GET /health/model`). Answers are cached briefly and
 * concurrent checks share one request, so the public endpoint cannot be used to flood the model
 * server. Bounded in time and bytes.
 */
export interface ModelStatus {
  reachable: boolean;
  checkedAt: Date;
  latencyMs: number;
  /** Model ids the server listed (at most 100). */
  models: string[];
  /** Whether LLM_MODEL is among them (null when the server did not answer a list). */
  modelListed: boolean | null;
  /** Why it is not reachable: `connection refused`, `HTTP 401`, `timeout`, … (null when it is). */
  error: string | null;
}

export interface ModelProbe {
  readonly url: string;
  readonly model: string;
  check(): Promise<ModelStatus>;
}

export interface ModelProbeOptions {
  timeoutMs?: number;
  cacheMs?: number;
  now?: () => number;
}

const MAX_BODY_BYTES = 1024 * 1024;
const MAX_MODELS = 100;

export function createModelProbe(
  settings: LlmSettings,
  options: ModelProbeOptions = {},
): ModelProbe {
  const timeoutMs = options.timeoutMs ?? 3000;
  const cacheMs = options.cacheMs ?? 10_000;
  const now = options.now ?? Date.now;
  const endpoint = new URL(
    'models',
    settings.url.endsWith('/') ? settings.url : `${settings.url}/`,
  );
  let cached: { status: ModelStatus; atMs: number } | undefined;
  let inFlight: Promise<ModelStatus> | undefined;
  return {
    url: settings.url,
    model: settings.model,
    check() {
      if (cached && now() - cached.atMs < cacheMs) return Promise.resolve(cached.status);
      inFlight ??= probe(endpoint, settings, timeoutMs, now).then((status) => {
        cached = { status, atMs: now() };
        inFlight = undefined;
        return status;
      });
      return inFlight;
    },
  };
}

async function probe(
  endpoint: URL,
  settings: LlmSettings,
  timeoutMs: number,
  now: () => number,
): Promise<ModelStatus> {
  const startedMs = now();
  const done = (fields: Pick<ModelStatus, 'reachable' | 'models' | 'modelListed' | 'error'>) => ({
    ...fields,
    checkedAt: new Date(startedMs),
    latencyMs: Math.max(0, now() - startedMs),
  });
  try {
    const response = await fetch(endpoint, {
      headers: {
        accept: 'application/json',
        ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
      },
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await readBounded(response);
    if (!response.ok) {
      return done({
        reachable: false,
        models: [],
        modelListed: null,
        error: `HTTP ${response.status}`,
      });
    }
    const models = modelIds(text);
    return done({
      reachable: true,
      models: models ?? [],
      modelListed: models === null ? null : models.includes(settings.model),
      error: null,
    });
  } catch (err) {
    return done({ reachable: false, models: [], modelListed: null, error: describeError(err) });
  }
}

async function readBounded(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      break;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The ids of an OpenAI-style `{data: [{id}]}` list; null when the answer is not one. */
function modelIds(text: string): string[] | null {
  try {
    const data = (JSON.parse(text) as { data?: unknown } | null)?.data;
    if (!Array.isArray(data)) return null;
    return data
      .map((entry) => (entry as { id?: unknown } | null)?.id)
      .filter((id): id is string => typeof id === 'string')
      .slice(0, MAX_MODELS)
      .map((id) => id.slice(0, 200));
  } catch {
    return null;
  }
}

function describeError(err: unknown): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
    return 'timeout';
  }
  const code = (err as { cause?: { code?: unknown } } | null)?.cause?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
  if (typeof code === 'string') return code;
  return err instanceof Error ? err.message.slice(0, 200) : String(err).slice(0, 200);
}
