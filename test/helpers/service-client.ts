// Requests to a running service as one tenant, for integration tests that drive runs through the
// API: the JSON answer with its status, and a job that comes due only when triggered.
import { expect } from 'vitest';

export interface ApiAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** `urlOf` is read at each request, so the client can be made before the service starts. */
export function serviceClient(urlOf: () => string, defaultToken: string) {
  async function api(method: string, url: string, body?: unknown, token = defaultToken) {
    const response = await fetch(`${urlOf()}${url}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    } satisfies ApiAnswer;
  }

  /** A job that never comes due by itself (1 January), run by POST trigger. */
  async function createJob(prompt: string, extra: Record<string, unknown> = {}): Promise<string> {
    const created = await api('POST', '/v1/cron-jobs', {
      name: prompt,
      schedule: '0 0 1 1 *',
      prompt,
      ...extra,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.id as string;
  }

  return { api, createJob };
}
