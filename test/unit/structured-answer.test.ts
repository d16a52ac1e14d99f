// Structured answers against a scripted model step: what each LLM_JSON_SCHEMA mode sends, the
// instruction's place, the one repair turn, and the tenant limit asked before it.
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { LlmError } from '../../src/agent/llm.js';
import type { CompleteStep } from '../../src/agent/loop.js';
import {
  answerStructured,
  InvalidOutputError,
  type AnswerShape,
} from '../../src/agent/structured-answer.js';
import { compileOutputSchema } from '../../src/jobs/output-schema.js';

const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
const compiled = compileOutputSchema(schema);
if (!compiled.ok) throw new Error(compiled.message);
const shape: AnswerShape = {
  kind: 'json_schema',
  name: 'count',
  schema,
  validate: compiled.validate,
};

type Params = Parameters<CompleteStep>[0];
function scripted(replies: (string | Error)[]) {
  const sent: Params[] = [];
  const step: CompleteStep = (params) => {
    sent.push(params);
    const reply = replies.shift() ?? '';
    if (reply instanceof Error) return Promise.reject(reply);
    return Promise.resolve({
      id: 'x',
      object: 'chat.completion',
      created: 0,
      model: 'm',
      choices: [
        {
          index: 0,
          finish_reason: 'stop',
          logprobs: null,
          message: { role: 'assistant', content: reply, refusal: null },
        },
      ],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    } satisfies ChatCompletion);
  };
  return { step, sent };
}

const request = (beforeStep?: () => Promise<string | null>) => ({
  messages: [
    { role: 'system' as const, content: 'job' },
    { role: 'user' as const, content: 'count' },
  ],
  tools: [],
  context: { tenantId: 't', signal: new AbortController().signal },
  beforeStep,
});

describe('answerStructured', () => {
  it('on/auto: sends response_format json_schema and the instruction before the prompt', async () => {
    const { step, sent } = scripted(['{"n": 1}']);
    const done = await answerStructured(step, request(), shape, 'on');
    expect(done.output).toEqual({ n: 1 });
    expect(sent[0]?.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'count', schema, strict: false },
    });
    expect(sent[0]?.messages.map((m) => m.role)).toEqual(['system', 'system', 'user']);
  });

  it('off: the instruction only', async () => {
    const { step, sent } = scripted(['{"n": 2}']);
    await answerStructured(step, request(), shape, 'off');
    expect(sent[0]?.response_format).toBeUndefined();
    expect(JSON.stringify(sent[0]?.messages)).toContain('validates against this JSON Schema');
  });

  it('auto drops response_format after a 400 naming it; on does not', async () => {
    const refusal = () =>
      new LlmError(
        'the model server answered 400: response_format is not supported',
        'upstream',
        false,
        400,
      );
    const auto = scripted([refusal(), '{"n": 3}', '{"n": 3}']);
    expect((await answerStructured(auto.step, request(), shape, 'auto')).output).toEqual({ n: 3 });
    expect(auto.sent.map((p) => p.response_format?.type ?? 'none')).toEqual([
      'json_schema',
      'none',
    ]);
    const on = scripted([refusal()]);
    await expect(answerStructured(on.step, request(), shape, 'on')).rejects.toBeInstanceOf(
      LlmError,
    );
  });

  it('repairs once, then fails InvalidOutputError naming the errors', async () => {
    const { step, sent } = scripted(['{"n": "x"}', '{"n": "y"}']);
    const failed = answerStructured(step, request(), shape, 'off');
    await expect(failed).rejects.toBeInstanceOf(InvalidOutputError);
    await expect(failed).rejects.toThrow('/n: must be integer');
    expect(sent).toHaveLength(2);
    expect(sent[1]?.tools).toBeUndefined();
    expect(sent[1]?.messages.at(-2)).toEqual({ role: 'assistant', content: '{"n": "x"}' });
  });

  it("asks the tenant's limit before the repair turn", async () => {
    const { step, sent } = scripted(['nope']);
    const stopped = await answerStructured(
      step,
      {
        ...request(async () => 'the limit of 1 request per minute was reached'),
        answerOnStop: true,
      },
      shape,
      'off',
    );
    expect(stopped.answer.stopped).toBe('tenant_limit');
    expect(stopped.answer.content).toContain('the limit of 1 request per minute');
    expect(sent).toHaveLength(1);
  });
});
