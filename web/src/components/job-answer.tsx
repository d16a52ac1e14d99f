// The job form's answer fields: the models (primary, then fallbacks) and the output schema
// (a JSON Schema each run's answer must satisfy). Kept as text while edited; toAnswerBody reads
// them for the request, refusing a schema that is not JSON before it is sent.
import type { Job } from '../api';
import { Field, describedBy } from './ui';

export interface AnswerValues {
  models: string;
  outputSchema: string;
}

export const EMPTY_ANSWER: AnswerValues = { models: '', outputSchema: '' };

export function answerOf(job: Job): AnswerValues {
  return {
    models: (job.models ?? []).join(', '),
    outputSchema: job.output_schema ? JSON.stringify(job.output_schema, null, 2) : '',
  };
}

/** The request's models and output_schema; throws a message when the schema is not JSON. */
export function toAnswerBody(values: AnswerValues): {
  models: string[];
  output_schema: Record<string, unknown> | null;
} {
  const models = values.models
    .split(/[\s,]+/)
    .map((model) => model.trim())
    .filter(Boolean);
  if (!values.outputSchema.trim()) return { models, output_schema: null };
  let schema: unknown;
  try {
    schema = JSON.parse(values.outputSchema);
  } catch {
    throw new Error('output_schema is not JSON');
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new Error('output_schema must be a JSON object');
  }
  return { models, output_schema: schema as Record<string, unknown> };
}

export function AnswerFields(props: {
  values: AnswerValues;
  onChange: (values: AnswerValues) => void;
  error?: string | undefined;
}) {
  const { values, onChange, error } = props;
  return (
    <>
      <Field
        id="models"
        label="Models"
        hint="Optional: the primary model, then fallbacks, separated by commas; a call goes to the next one when a model is down, fails or is too slow."
      >
        <input
          id="models"
          class="mono"
          value={values.models}
          spellcheck={false}
          autocomplete="off"
          onInput={(e) => onChange({ ...values, models: e.currentTarget.value })}
          {...describedBy('models', undefined, true)}
        />
      </Field>
      <Field
        id="output_schema"
        label="Output schema"
        error={error}
        hint="Optional: a JSON Schema (draft 2020-12) each answer must satisfy; the run stores the parsed JSON as its output."
      >
        <textarea
          id="output_schema"
          class="mono"
          rows={6}
          spellcheck={false}
          value={values.outputSchema}
          onInput={(e) => onChange({ ...values, outputSchema: e.currentTarget.value })}
          {...describedBy('output_schema', error, true)}
        />
      </Field>
    </>
  );
}
