import { z } from 'zod';

// The answers of the OpenAI-compatible routes. Loose objects: the serializer keeps fields these do
// not name (the OpenAI format grows), while the ones named here are checked and documented.

const Usage = z.looseObject({
  prompt_tokens: z.number().int().min(0),
  completion_tokens: z.number().int().min(0),
  total_tokens: z.number().int().min(0),
});

export const ChatCompletion = z
  .looseObject({
    id: z.string(),
    object: z.string().describe('always chat.completion'),
    created: z.number().int().describe('Unix time in seconds'),
    model: z.string(),
    choices: z.array(
      z.looseObject({
        index: z.number().int(),
        message: z.looseObject({
          role: z.string().describe('always assistant'),
          content: z.string().nullable(),
        }),
        finish_reason: z.string().nullable(),
      }),
    ),
    usage: Usage.optional(),
  })
  .meta({ id: 'ChatCompletion' });

export const ChatCompletionStream = z
  .string()
  .describe('Server-sent events: `data: <chat.completion.chunk JSON>` lines, then `data: [DONE]`');

export const Model = z
  .object({
    id: z.string(),
    object: z.string().describe('always model'),
    created: z.number().int(),
    owned_by: z.string(),
  })
  .meta({ id: 'Model' });

export const ModelList = z
  .object({ object: z.string().describe('always list'), data: z.array(Model) })
  .meta({ id: 'ModelList' });
