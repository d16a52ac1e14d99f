// The models a job may name in its `model` field: LLM_MODELS when set, otherwise what the model
// server lists at /models (read again at most once a minute). The default model is always allowed.

export interface ModelCatalogSettings {
  url: string;
  apiKey: string;
  /** The default model (LLM_MODELS' first, or LLM_MODEL). */
  model: string;
  /** LLM_MODELS; empty: ask the server. */
  models: readonly string[];
}

const CACHE_MS = 60_000;
const REQUEST_TIMEOUT_MS = 5000;
const MAX_MODELS = 1000;

/** Returns a function listing the allowed models, the default first. */
export function createModelCatalog(
  settings: ModelCatalogSettings,
  now: () => number = Date.now,
): () => Promise<readonly string[]> {
  if (settings.models.length > 0) {
    const fixed = Object.freeze([...settings.models]);
    return () => Promise.resolve(fixed);
  }
  let cached: { atMs: number; models: readonly string[] } | undefined;
  return async () => {
    if (cached && now() - cached.atMs < CACHE_MS) return cached.models;
    const listed = await fetchServerModels(settings).catch(() => []);
    const models = Object.freeze([
      settings.model,
      ...listed.filter((name) => name !== settings.model),
    ]);
    cached = { atMs: now(), models };
    return models;
  };
}

/** GET {LLM_API_URL}/models: the operator's own server (not a tenant-chosen address). */
async function fetchServerModels(settings: ModelCatalogSettings): Promise<string[]> {
  const answer = await fetch(`${settings.url.replace(/\/+$/, '')}/models`, {
    headers: settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {},
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    redirect: 'error',
  });
  if (!answer.ok) return [];
  const body = (await answer.json()) as { data?: unknown };
  if (!Array.isArray(body.data)) return [];
  return body.data
    .map((entry: unknown) => (entry as { id?: unknown })?.id)
    .filter((id): id is string => typeof id === 'string' && id.length > 0 && id.length <= 200)
    .slice(0, MAX_MODELS);
}

/** The catalog plus the models of LLM_MODEL_URLS (served elsewhere, so not on /models here). */
export function withRoutedModels(
  list: () => Promise<readonly string[]>,
  routed: readonly string[],
): () => Promise<readonly string[]> {
  if (routed.length === 0) return list;
  return async () => {
    const listed = await list();
    return [...listed, ...routed.filter((model) => !listed.includes(model))];
  };
}
