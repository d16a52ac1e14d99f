import { ApiError } from './errors.js';

/**
 * OpenAI parameters the agent cannot honour: dropping them silently makes clients misread the
 * answer (a structured-output client parses prose as JSON), so each gets a 400 naming it. The
 * test says when a value is harmless (the default, or a no-op) and so still accepted.
 */
const UNSUPPORTED: Record<string, { harmless: (value: unknown) => boolean; why: string }> = {
  tools: {
    harmless: (v) => Array.isArray(v) && v.length === 0,
    why: 'the agent uses its own tools; client-side tools are not supported',
  },
  tool_choice: {
    harmless: (v) => v === 'auto' || v === 'none',
    why: 'the agent chooses its own tools',
  },
  parallel_tool_calls: { harmless: () => true, why: '' },
  functions: { harmless: (v) => Array.isArray(v) && v.length === 0, why: 'use no functions' },
  function_call: { harmless: (v) => v === 'auto' || v === 'none', why: 'use no functions' },
  n: { harmless: (v) => v === 1, why: 'the agent gives exactly one choice' },
  stop: {
    harmless: (v) => v === '' || (Array.isArray(v) && v.length === 0),
    why: 'stop sequences are not supported',
  },
  seed: { harmless: () => false, why: 'seeded sampling is not supported' },
  logprobs: { harmless: (v) => v === false, why: 'log probabilities are not supported' },
  top_logprobs: { harmless: (v) => v === 0, why: 'log probabilities are not supported' },
  logit_bias: {
    harmless: (v) => typeof v === 'object' && v !== null && Object.keys(v).length === 0,
    why: 'logit bias is not supported',
  },
  audio: { harmless: () => false, why: 'audio output is not supported' },
  modalities: {
    harmless: (v) => Array.isArray(v) && v.every((m) => m === 'text'),
    why: 'only text output is supported',
  },
  prediction: { harmless: () => false, why: 'predicted outputs are not supported' },
};

/** Refuses what the agent cannot do (runs before schema validation, on the raw JSON body). */
export function checkChatParameters(body: unknown, maxTokens: number): void {
  if (typeof body !== 'object' || body === null) return;
  const fields = body as Record<string, unknown>;
  for (const [name, rule] of Object.entries(UNSUPPORTED)) {
    const value = fields[name];
    if (value === undefined || value === null || rule.harmless(value)) continue;
    throw new ApiError(400, 'unsupported_parameter', `${name}: ${rule.why}`);
  }
  for (const name of ['max_tokens', 'max_completion_tokens']) {
    const value = fields[name];
    if (typeof value === 'number' && value > maxTokens) {
      throw new ApiError(
        400,
        'unsupported_parameter',
        `${name}: at most ${maxTokens} (CHAT_MAX_TOKENS) on this server`,
      );
    }
  }
  const messages = Array.isArray(fields.messages) ? fields.messages : [];
  messages.forEach((message: unknown, i) => {
    const content = (message as { content?: unknown } | null)?.content;
    if (!Array.isArray(content)) return;
    content.forEach((part: unknown, j) => {
      const type = (part as { type?: unknown } | null)?.type;
      if (type !== 'text') {
        throw new ApiError(
          400,
          'unsupported_parameter',
          `messages[${i}].content[${j}]: only text parts are supported, not ${JSON.stringify(type)}`,
        );
      }
    });
  });
}
