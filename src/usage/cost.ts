// What a model call costs: integer micro-dollars from the tokens the model server reported and
// the operator's price of the model. Pure: no I/O, no clock.

/** A model's price in micro-dollars per million tokens (so $2.50 per 1M tokens is 2_500_000). */
export interface ModelPrice {
  inputMicrosPerMTok: number;
  cachedInputMicrosPerMTok: number;
  outputMicrosPerMTok: number;
}

/** A call's tokens as the answer's `usage` gives them; cached tokens are part of prompt tokens. */
export interface CallTokens {
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
}

const MILLION = 1_000_000n;

/**
 * The cost of one call in micro-dollars, or null when the model has no price (unknown, never
 * guessed). Exact in integers (BigInt), then rounded up to the next whole micro-dollar once per
 * call: a call that used priced tokens never costs 0, and a run's or a tenant's cost is the sum
 * of its calls' rounded costs, so every total adds up exactly. Cached tokens (at most the prompt
 * tokens) are billed at the cached price, the rest of the prompt at the input price.
 */
export function costMicros(tokens: CallTokens, price: ModelPrice | null): number | null {
  if (price === null) return null;
  const prompt = BigInt(nonNegative(tokens.promptTokens));
  const cached = BigInt(Math.min(nonNegative(tokens.cachedTokens), Number(prompt)));
  const completion = BigInt(nonNegative(tokens.completionTokens));
  const scaled =
    (prompt - cached) * BigInt(price.inputMicrosPerMTok) +
    cached * BigInt(price.cachedInputMicrosPerMTok) +
    completion * BigInt(price.outputMicrosPerMTok);
  return Number((scaled + MILLION - 1n) / MILLION);
}

/** A call's usage read from a chat completion's `usage` (absent or malformed parts count 0). */
export function readUsage(usage: unknown): CallTokens {
  const u = (usage ?? {}) as {
    prompt_tokens?: unknown;
    completion_tokens?: unknown;
    prompt_tokens_details?: { cached_tokens?: unknown } | null;
  };
  return {
    promptTokens: nonNegative(u.prompt_tokens),
    cachedTokens: nonNegative(u.prompt_tokens_details?.cached_tokens),
    completionTokens: nonNegative(u.completion_tokens),
  };
}

/**
 * Prompt tokens of a request before it is sent: its JSON bytes / 4, rounded up. Tokenizers give
 * about 4 bytes of English per token and fewer for JSON punctuation and other scripts; the
 * estimate only sizes a reservation, which is settled to the reported usage after the call.
 */
export function estimatePromptTokens(requestBytes: number): number {
  return Math.ceil(Math.max(0, requestBytes) / 4);
}

function nonNegative(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}
