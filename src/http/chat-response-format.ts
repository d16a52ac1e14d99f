// Chat's response_format (OpenAI's shape): text (the default), json_object, or json_schema with
// a JSON Schema the server compiles before the turn starts (the same rules as a job's
// output_schema). The agent then answers in that shape (src/agent/structured-answer.ts).
import { z } from 'zod';
import { checkOutputSchema, compileOutputSchema } from '../jobs/output-schema.js';
import type { AnswerShape } from '../agent/structured-answer.js';

export const ResponseFormat = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('text') }),
    z.object({ type: z.literal('json_object') }),
    z.object({
      type: z.literal('json_schema'),
      json_schema: z.object({
        name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'name: 1 to 64 letters, digits, _ or -'),
        description: z.string().max(1000).optional(),
        schema: z.record(z.string(), z.unknown()).superRefine((schema, ctx) => {
          const problem = checkOutputSchema(schema);
          if (problem) ctx.addIssue({ code: 'custom', message: `json_schema.schema ${problem}` });
        }),
        strict: z.boolean().nullish(),
      }),
    }),
  ])
  .nullish()
  .describe(
    'json_object: the answer is a JSON object; json_schema: it validates against the schema (draft 2020-12, at most 16 KiB), after one repair turn at most, else 422 invalid_output',
  );
export type ResponseFormat = z.infer<typeof ResponseFormat>;

/** The shape the answer must have, or null for free text. */
export function shapeOf(format: ResponseFormat): AnswerShape | null {
  if (!format || format.type === 'text') return null;
  if (format.type === 'json_object') return { kind: 'json_object' };
  const { name, schema } = format.json_schema;
  const compiled = compileOutputSchema(schema);
  // Checked by the body's schema already; a schema that stopped compiling is not possible.
  if (!compiled.ok) throw new Error(compiled.message);
  return { kind: 'json_schema', name, schema, validate: compiled.validate };
}
