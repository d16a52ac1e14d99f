// A job's output schema (JSON Schema draft 2020-12): compiled with ajv, the maintained validator
// of that draft (with ajv-formats for `format`), when the job is saved and again, from a bounded
// cache, when its runs check their answers. Pure: no I/O.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/** Bytes of a schema as its JSON text (the API's bound; the column's CHECK says the same). */
export const OUTPUT_SCHEMA_MAX_BYTES = 16 * 1024;
/** Bytes of the parsed answer stored with the run (cron_job_runs.output's CHECK). */
export const OUTPUT_MAX_BYTES = 32 * 1024;
/** Validation errors named to the model (and in the run's error), at most. */
const ERRORS_SHOWN = 8;
const ERRORS_TEXT_CHARS = 1500;
const CACHED_VALIDATORS = 200;

// ajv-formats is CommonJS: its default export arrives as the module object under NodeNext.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as typeof addFormatsModule.default;

function createAjv(): Ajv2020 {
  // allErrors: the repair turn names every problem at once. Strict about the schema's keywords
  // (a typo is refused when the job is saved), not about type unions, which are legal 2020-12.
  const ajv = new Ajv2020({
    allErrors: true,
    strict: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    validateFormats: true,
  });
  addFormats(ajv);
  return ajv;
}

// One instance (building one with its formats costs ~80 ms); each schema leaves it once
// compiled, so one job's $id never collides with another's.
let shared: Ajv2020 | undefined;

function compileAlone(schema: object): ValidateFunction {
  const ajv = (shared ??= createAjv());
  try {
    return ajv.compile(schema);
  } finally {
    try {
      ajv.removeSchema(schema);
    } catch {
      // A schema with an unusable $id was never added.
    }
  }
}

export type CompiledSchema =
  { ok: true; validate: ValidateFunction } | { ok: false; message: string };

/** Why a schema cannot be used, or null. Checks the size, the shape, and compiles it. */
export function checkOutputSchema(schema: unknown): string | null {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return 'must be a JSON Schema object (draft 2020-12)';
  }
  const bytes = Buffer.byteLength(JSON.stringify(schema), 'utf8');
  if (bytes > OUTPUT_SCHEMA_MAX_BYTES) {
    return `is ${bytes} bytes of JSON; at most ${OUTPUT_SCHEMA_MAX_BYTES} are allowed`;
  }
  const compiled = compileOutputSchema(schema);
  return compiled.ok ? null : compiled.message;
}

// Compiling costs far more than validating: runs of one job share their validator.
const validators = new Map<string, CompiledSchema>();

/** The schema's validator (cached by its JSON text), or why it does not compile. */
export function compileOutputSchema(schema: object): CompiledSchema {
  const key = JSON.stringify(schema);
  const held = validators.get(key);
  if (held) return held;
  let compiled: CompiledSchema;
  try {
    compiled = { ok: true, validate: compileAlone(schema) };
  } catch (err) {
    compiled = { ok: false, message: `is not a valid JSON Schema: ${messageOf(err)}` };
  }
  if (validators.size >= CACHED_VALIDATORS) {
    const oldest = validators.keys().next().value;
    if (oldest !== undefined) validators.delete(oldest);
  }
  validators.set(key, compiled);
  return compiled;
}

export type CheckedAnswer = { ok: true; value: unknown } | { ok: false; errors: string };

/**
 * The answer as JSON (a ```json fence around it is tolerated), checked against the schema and
 * bounded in size; otherwise what is wrong with it, in a few lines the model can act on.
 */
export function checkAnswer(validate: ValidateFunction, text: string): CheckedAnswer {
  const parsed = parseAnswer(text);
  if (!parsed.ok) return { ok: false, errors: parsed.errors };
  if (!validate(parsed.value)) {
    return { ok: false, errors: describeErrors(validate.errors ?? []) };
  }
  const bytes = Buffer.byteLength(JSON.stringify(parsed.value), 'utf8');
  if (bytes > OUTPUT_MAX_BYTES) {
    return {
      ok: false,
      errors: `the JSON is ${bytes} bytes; at most ${OUTPUT_MAX_BYTES} are kept: answer with less`,
    };
  }
  return { ok: true, value: parsed.value };
}

/** The JSON of an answer: the whole text, or the body of one fenced block (```json … ```). */
export function parseAnswer(text: string): CheckedAnswer {
  const trimmed = text.trim();
  const fenced = /^```[a-zA-Z]*\s*\n([\s\S]*?)\n?```$/.exec(trimmed);
  const body = fenced ? (fenced[1] ?? '') : trimmed;
  if (body === '') return { ok: false, errors: 'the answer is empty; a JSON value is expected' };
  try {
    return { ok: true, value: JSON.parse(body) as unknown };
  } catch (err) {
    return { ok: false, errors: `the answer is not JSON (${messageOf(err)})` };
  }
}

/** ajv's errors as lines (`/path: message`), the first few only, bounded. */
export function describeErrors(errors: readonly ErrorObject[]): string {
  const lines = errors.slice(0, ERRORS_SHOWN).map((error) => {
    const where = error.instancePath === '' ? '(the value)' : error.instancePath;
    const extra =
      error.keyword === 'additionalProperties'
        ? ` (${String((error.params as { additionalProperty?: unknown }).additionalProperty)})`
        : '';
    return `${where}: ${error.message ?? error.keyword}${extra}`;
  });
  if (errors.length > ERRORS_SHOWN) lines.push(`… and ${errors.length - ERRORS_SHOWN} more`);
  const text = lines.join('\n');
  return text.length > ERRORS_TEXT_CHARS ? `${text.slice(0, ERRORS_TEXT_CHARS)}…` : text;
}

/** The system message that asks for the shape (sent whether or not response_format is). */
export function describeOutputSchema(schema: object): string {
  return [
    'Your final answer must be a single JSON value that validates against this JSON Schema',
    '(draft 2020-12). Reply with the JSON only: no prose, no code fence.',
    JSON.stringify(schema),
  ].join('\n');
}

/** The repair turn's request: what failed, and the same demand again. */
export function describeRepair(errors: string): string {
  return [
    'Your answer does not validate against the required JSON Schema:',
    errors,
    'Reply again with only the corrected JSON value.',
  ].join('\n');
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
