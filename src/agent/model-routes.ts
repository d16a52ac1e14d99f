// Models served by another server than LLM_API_URL (LLM_MODEL_URLS): a call naming such a model
// goes to that server's client; every other call to the default one. Fallback across servers
// (a local model first, a hosted one when it is down) needs nothing more.
import { createLlm, type Llm, type LlmOptions, type LlmSettings } from './llm.js';
import { createStreamingLlm, type StreamingLlm } from './llm-stream.js';
import {
  createModelConnections,
  type ModelConnectionLimits,
  type ModelConnections,
} from './model-connections.js';

/** The client of the model a call names (its own server's, or the default one). */
export function routeModels(base: Llm, routes: ReadonlyMap<string, Llm>): Llm {
  if (routes.size === 0) return base;
  return {
    model: base.model,
    complete: (params, signal, options) =>
      (routes.get(params.model ?? base.model) ?? base).complete(params, signal, options),
  };
}

export function routeStreamingModels(
  base: StreamingLlm,
  routes: ReadonlyMap<string, StreamingLlm>,
  defaultModel: string,
): StreamingLlm {
  if (routes.size === 0) return base;
  return {
    complete: (params, signal, onDelta, call) =>
      (routes.get(params.model ?? defaultModel) ?? base).complete(params, signal, onDelta, call),
  };
}

/** One client per distinct URL of LLM_MODEL_URLS, by model. */
export function buildRoutes<C>(
  urls: ReadonlyMap<string, string>,
  create: (url: string) => C,
): Map<string, C> {
  const byUrl = new Map<string, C>();
  const routes = new Map<string, C>();
  for (const [model, url] of urls) {
    let client = byUrl.get(url);
    if (!client) {
      client = create(url);
      byUrl.set(url, client);
    }
    routes.set(model, client);
  }
  return routes;
}

export interface ModelServers {
  /** A request client for the default server, routed to the others by model. */
  llm(options: Omit<LlmOptions, 'connections'>): Llm;
  streaming(options?: { requestTimeoutMs?: number }): StreamingLlm;
}

/**
 * The process's model servers: the default one on the shared pool, each server of
 * LLM_MODEL_URLS on a pool of its own (same limits), all with LLM_API_KEY.
 */
export function createModelServers(
  settings: LlmSettings,
  urls: ReadonlyMap<string, string>,
  connections: ModelConnections,
  limits: ModelConnectionLimits,
): ModelServers {
  const servers = buildRoutes(urls, (url) => ({
    settings: { ...settings, url },
    connections: createModelConnections(url, limits),
  }));
  const clients = <C>(
    create: (server: { settings: LlmSettings; connections: ModelConnections }) => C,
  ) => new Map([...servers].map(([model, server]) => [model, create(server)]));
  return {
    llm: (options) =>
      routeModels(
        createLlm(settings, { ...options, connections }),
        clients((server) =>
          createLlm(server.settings, { ...options, connections: server.connections }),
        ),
      ),
    streaming: (options = {}) =>
      routeStreamingModels(
        createStreamingLlm(settings, { ...options, connections }),
        clients((server) =>
          createStreamingLlm(server.settings, { ...options, connections: server.connections }),
        ),
        settings.model,
      ),
  };
}
