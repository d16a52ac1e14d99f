// What a tenant reads of a failed run. The model server's own words can quote its configuration
// (an API key's prefix, an internal URL, an organisation id) and a connection error names
// internal hosts: they go to the log line of the run only ("cron job executed", with the run id),
// and the stored `error` is a fixed sentence per error kind plus the run id to quote.
import type { ErrorKind } from '../domain/vocabulary.js';

// Kinds whose text comes from outside the service (the model server, the network, an exception).
const GENERIC_TEXT: Partial<Record<ErrorKind, string>> = {
  model_error: 'the model server answered with an error',
  model_unreachable: 'the model server could not be reached',
  model_throttled: 'the model server kept refusing the request as rate limited',
  bad_response: 'the model server sent an answer that could not be used',
  agent_error:
    'the agent could not finish the run (a limit such as its steps, or an internal error)',
};

/**
 * The `error` stored for tenants: for the kinds above a generic sentence with the run id; the
 * service's own texts (timeout, shutdown, pod crash or lock TTL exceeded, …) as they are.
 */
export function tenantErrorText(kind: ErrorKind | null, runId: string, error: string): string {
  const generic = kind === null ? undefined : GENERIC_TEXT[kind];
  return generic === undefined
    ? error
    : `${generic}; details are in the service log (run id ${runId})`;
}
