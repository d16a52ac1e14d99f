import { z } from 'zod';
import { ErrorBody } from './schemas.js';

// The error statuses of the API, each with what it means here. A route lists the statuses its
// code can return, so /openapi.json names every answer a client can get.
const MEANING = {
  400: 'Bad request: the body, query or URL is invalid (error.code says which rule)',
  401: 'Missing or invalid bearer token',
  403: 'The token cannot use this route (admin token vs tenant API key)',
  404: 'No such resource (for this tenant)',
  409: 'Conflicts with the current state (quota reached, job disabled, Idempotency-Key reused)',
  413: 'The body is larger than 256 KiB',
  414: 'A path parameter is longer than 100 characters',
  415: 'The body is not application/json',
  422: 'The schedule, timezone, webhook URL, model or a limit cannot be used (error.code says which)',
  429: 'Too many requests; retry after the Retry-After header',
  500: 'Unexpected server error (details are in the log, not the answer)',
  502: 'The model server failed or answered badly',
  503: 'Not available right now (the scheduler waits for Redis); retry shortly',
  504: 'The model server did not answer in time',
} as const;

export type ErrorStatus = keyof typeof MEANING;

/** Error responses `{"error":{"code","message"}}` for the given statuses, for a route schema. */
export function errorResponses(...statuses: ErrorStatus[]) {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      { description: MEANING[status], content: { 'application/json': { schema: ErrorBody } } },
    ]),
  );
}

/** What every authenticated route can answer on top of its own statuses. */
export const AUTHENTICATED: ErrorStatus[] = [400, 401, 403, 429, 500];
/** What a route with a JSON body can answer on top. */
export const WITH_BODY: ErrorStatus[] = [413, 415];
/** What a route with an :id can answer on top. */
export const WITH_ID: ErrorStatus[] = [404, 414];

/** The query of a route that takes none: unknown parameters get a 400 like everywhere else. */
export const NoQuery = z.strictObject({});

/** The admin token or a tenant API key: `Authorization: Bearer <token>`. */
export const BEARER = [{ bearer: [] }];
/** No authentication. */
export const PUBLIC: [] = [];
