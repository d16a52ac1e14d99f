// What a tenant reads of a failed run. The model server's own words can quote its configuration
// (an API key's prefix, an internal URL, an organisation id) and a connection error names
// internal hosts: the whole text goes to the log line of the run only ("cron job executed", with
// the run id). The stored `error` is a fixed sentence per error kind, then, for the model's
// kinds, the first line of what the model server said with its addresses and credentials
// redacted (so a tenant can tell a wrong model name from an outage), and the run id to quote.
import type { ErrorKind } from '../domain/vocabulary.js';
import { modelErrorLine } from './model-error-line.js';

// Kinds whose text comes from outside the service (the model server, the network, an exception).
const GENERIC_TEXT: Partial<Record<ErrorKind, string>> = {
  model_error: 'the model server answered with an error',
  model_unreachable: 'the model server could not be reached',
  model_throttled: 'the model server kept refusing the request as rate limited',
  bad_response: 'the model server sent an answer that could not be used',
  agent_error:
    'the agent could not finish the run (a limit such as its steps, or an internal error)',
};

// Of those, the kinds whose first line is the model server's (or the network's) and is shown.
const MODEL_KINDS: ReadonlySet<ErrorKind> = new Set([
  'model_error',
  'model_unreachable',
  'model_throttled',
  'bad_response',
]);

/**
 * The `error` stored for tenants: for the kinds above a generic sentence (with the model server's
 * redacted first line for the model's kinds) and the run id; the service's own texts (timeout,
 * shutdown, pod crash or lock TTL exceeded, …) as they are.
 */
export function tenantErrorText(kind: ErrorKind | null, runId: string, error: string): string {
  const generic = kind === null ? undefined : GENERIC_TEXT[kind];
  if (generic === undefined) return error;
  const line = kind !== null && MODEL_KINDS.has(kind) ? modelErrorLine(error) : null;
  const said = line === null ? '' : `: "${line}"`;
  return `${generic}${said}; details are in the service log (run id ${runId})`;
}
