import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { CommandError } from '../jobs/commands.js';

/** An error the API answers with its own status and stable code: {"error":{"code","message"}}. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The client went away before its answer: nothing failed, and nothing can be sent. */
export class ClientDisconnected extends Error {
  override name = 'ClientDisconnected';
  constructor() {
    super('client disconnected');
  }
}

export function errorBody(code: string, message: string) {
  return { error: { code, message } };
}

const FASTIFY_CODES: Record<string, [number, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'payload_too_large'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'unsupported_media_type'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'invalid_json'],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'invalid_json'],
  FST_ERR_VALIDATION: [400, 'validation_error'],
};

/**
 * Errors the router raises before any route or error handler runs (Fastify's `frameworkErrors`
 * option): without this they would leave in Fastify's own shape, not {"error":{"code","message"}}.
 */
export function frameworkErrorReply(error: FastifyError, _request: unknown, reply: FastifyReply) {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return reply.code(414).send(errorBody('uri_too_long', 'a path parameter is too long'));
  }
  if (error.code === 'FST_ERR_BAD_URL') {
    return reply.code(400).send(errorBody('bad_request', 'the URL is not validly encoded'));
  }
  const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 400;
  return reply.code(status).send(errorBody('bad_request', error.message));
}

// The AI SDK's default `openai('m')` and LangChain's `useResponsesApi` call the Responses API:
// say which endpoint exists and how to select it, rather than a bare 404.
const RESPONSES_API_MESSAGE =
  'the OpenAI Responses API (/v1/responses) is not supported: use POST /v1/chat/completions ' +
  "(AI SDK: openai.chat('model'); LangChain: useResponsesApi: false; openai SDK: client.chat.completions.create)";

/** Every error leaves as {"error":{"code","message"}}; unexpected ones as a 500 without details. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    if (/^\/v1\/responses(\/|$)/.test(path)) {
      return reply.code(404).send(errorBody('unsupported_api', RESPONSES_API_MESSAGE));
    }
    void reply.code(404).send(errorBody('not_found', `no route for ${request.method} ${path}`));
  });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (
      error instanceof ClientDisconnected ||
      (error.name === 'AbortError' && request.raw.destroyed)
    ) {
      request.log.info({ method: request.method, url: request.url }, 'client disconnected');
      return reply.code(499).send(errorBody('client_disconnected', 'client disconnected'));
    }
    if (error instanceof ApiError || error instanceof CommandError) {
      const status = error instanceof ApiError ? error.statusCode : error.status;
      if (error instanceof CommandError && error.retryAfterSeconds !== undefined) {
        void reply.header('retry-after', error.retryAfterSeconds);
      }
      return reply.code(status).send(errorBody(error.code, error.message));
    }
    const known = error.code ? FASTIFY_CODES[error.code] : undefined;
    if (known) return reply.code(known[0]).send(errorBody(known[1], error.message));
    if (error.validation) return reply.code(400).send(errorBody('validation_error', error.message));
    if (error.statusCode === 429) {
      return reply.code(429).send(errorBody('rate_limited', error.message));
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.code(error.statusCode).send(errorBody('bad_request', error.message));
    }
    request.log.error(
      { error: error.message, method: request.method, url: request.url },
      'request failed',
    );
    return reply.code(500).send(errorBody('internal', 'internal error'));
  });
}
