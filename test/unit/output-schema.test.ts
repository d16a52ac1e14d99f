// A job's output schema, pure: what is refused when it is saved, how an answer is read (a
// ```json fence tolerated) and checked, and how the errors named to the model are bounded.
import { describe, expect, it } from 'vitest';
import {
  checkAnswer,
  checkOutputSchema,
  compileOutputSchema,
  describeErrors,
  OUTPUT_MAX_BYTES,
} from '../../src/jobs/output-schema.js';

const schema = {
  type: 'object',
  properties: { n: { type: 'integer' }, when: { type: 'string', format: 'date' } },
  required: ['n'],
  additionalProperties: false,
};
const validate = (() => {
  const compiled = compileOutputSchema(schema);
  if (!compiled.ok) throw new Error(compiled.message);
  return compiled.validate;
})();

describe('checkOutputSchema', () => {
  it('accepts a 2020-12 schema with formats, unions and $defs', () => {
    expect(checkOutputSchema(schema)).toBeNull();
    expect(
      checkOutputSchema({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: ['object', 'null'],
        $defs: { id: { type: 'string', format: 'uuid' } },
        properties: { id: { $ref: '#/$defs/id' }, items: { prefixItems: [{ type: 'number' }] } },
      }),
    ).toBeNull();
  });

  it('keeps two jobs’ schemas with the same $id apart', () => {
    const a = compileOutputSchema({ $id: 'https://example.com/s', type: 'integer' });
    const b = compileOutputSchema({ $id: 'https://example.com/s', type: 'string' });
    if (!a.ok || !b.ok) throw new Error('did not compile');
    expect([a.validate(1), a.validate('x'), b.validate(1), b.validate('x')]).toEqual([
      true,
      false,
      false,
      true,
    ]);
    expect(checkOutputSchema({ $id: 7, type: 'object' })).toMatch(/not a valid JSON Schema/);
  });

  it('names what is wrong: not an object, too large, invalid, unknown keyword or format', () => {
    expect(checkOutputSchema([])).toMatch(/must be a JSON Schema object/);
    expect(checkOutputSchema({ description: 'x'.repeat(16_400) })).toMatch(/at most 16384/);
    expect(checkOutputSchema({ type: 'objekt' })).toMatch(/not a valid JSON Schema/);
    expect(checkOutputSchema({ type: 'object', requird: [] })).toMatch(
      /unknown keyword: "requird"/,
    );
    expect(checkOutputSchema({ type: 'string', format: 'colour' })).toMatch(/unknown format/);
  });
});

describe('checkAnswer', () => {
  it('reads plain JSON and a fenced block', () => {
    expect(checkAnswer(validate, ' {"n": 1} ')).toEqual({ ok: true, value: { n: 1 } });
    expect(checkAnswer(validate, '```json\n{"n": 2}\n```')).toEqual({ ok: true, value: { n: 2 } });
    expect(checkAnswer(validate, '```\n{"n": 3}\n```')).toEqual({ ok: true, value: { n: 3 } });
  });

  it('names every problem, by path', () => {
    const checked = checkAnswer(validate, '{"n": 1.5, "when": "soon", "x": 1}');
    expect(checked.ok).toBe(false);
    const errors = checked.ok ? '' : checked.errors;
    expect(errors).toContain('(the value): must NOT have additional properties (x)');
    expect(errors).toContain('/n: must be integer');
    expect(errors).toContain('/when: must match format "date"');
    expect(checkAnswer(validate, 'Three.')).toMatchObject({ ok: false });
    expect(checkAnswer(validate, '')).toMatchObject({ ok: false, errors: /empty/ });
  });

  it('refuses an output larger than the stored bound', () => {
    const loose = compileOutputSchema({ type: 'object' });
    if (!loose.ok) throw new Error(loose.message);
    const big = JSON.stringify({ text: 'x'.repeat(OUTPUT_MAX_BYTES) });
    expect(checkAnswer(loose.validate, big)).toMatchObject({ ok: false, errors: /at most/ });
  });

  it('bounds the errors named to the model', () => {
    const many = Array.from({ length: 30 }, (_, i) => ({
      instancePath: `/${'p'.repeat(200)}${i}`,
      schemaPath: '#',
      keyword: 'type',
      params: {},
      message: 'must be integer',
    }));
    const text = describeErrors(many);
    expect(text.split('\n').length).toBeLessThanOrEqual(9);
    expect(text.length).toBeLessThanOrEqual(1501);
  });
});
