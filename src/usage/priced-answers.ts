// Which priced call each model answer was: the metered step (metered-step.ts) notes it, and the
// call's span (src/tracing/agent-spans.ts) reads it, so a span's cost is the one the usage
// ledger records for that call, computed once. Keyed weakly by the answer object: nothing is
// added to the answer itself, and nothing is kept once the answer is gone.
import type { UsageCall } from '../domain/run.js';

const pricedAnswers = new WeakMap<object, UsageCall>();

export function notePricedAnswer(answer: object, call: UsageCall): void {
  pricedAnswers.set(answer, call);
}

/** The usage and cost the metered step counted for this answer; undefined: it was not metered. */
export function pricedCallOf(answer: object): UsageCall | undefined {
  return pricedAnswers.get(answer);
}
