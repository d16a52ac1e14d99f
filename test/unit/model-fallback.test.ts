// Model fallback's rules, pure: which errors move a call to the next model, the order of the
// models, and the walk itself (timeout per model, the caller's abort, a committed stream).
import { describe, expect, it } from 'vitest';
import { LlmError } from '../../src/agent/llm.js';
import {
  callWithFallback,
  fallbackReason,
  resolveModels,
  retryBudgetMs,
} from '../../src/agent/model-fallback.js';
import { refusesResponseFormat } from '../../src/agent/structured-answer.js';

describe('fallbackReason', () => {
  it('falls back on unreachable, timeout, throttled and 5xx; never on 4xx or a broken answer', () => {
    expect(fallbackReason(new LlmError('x', 'unreachable'))).toBe('unreachable');
    expect(fallbackReason(new LlmError('x', 'timeout'))).toBe('timeout');
    expect(fallbackReason(new LlmError('x', 'throttled', false, 429))).toBe('throttled');
    expect(fallbackReason(new LlmError('x', 'upstream', false, 502))).toBe('upstream_5xx');
    expect(fallbackReason(new LlmError('x', 'upstream', false, 400))).toBeNull();
    expect(fallbackReason(new LlmError('x', 'upstream'))).toBeNull();
    expect(fallbackReason(new LlmError('x', 'bad_response'))).toBeNull();
    expect(fallbackReason(new Error('x'))).toBeNull();
  });

  it('gives a model with a next one half the fallback timeout for its retries, 5 s at most', () => {
    expect(retryBudgetMs(3000)).toBe(1500);
    expect(retryBudgetMs(60_000)).toBe(5000);
  });
});

describe('resolveModels', () => {
  it("takes the job's list; else its model, then the tenant's defaults, without repeats", () => {
    expect(resolveModels(['a', 'b'], 'c', ['d'], 'srv')).toEqual(['a', 'b']);
    expect(resolveModels([], 'c', ['d', 'c'], 'srv')).toEqual(['c', 'd']);
    expect(resolveModels(null, null, ['d', 'e'], 'srv')).toEqual(['d', 'e']);
    expect(resolveModels(null, null, [], 'srv')).toEqual(['srv']);
  });
});

describe('callWithFallback', () => {
  const never = new AbortController().signal;

  it('walks the list until a model answers, telling each move', async () => {
    const moves: string[] = [];
    const answer = await callWithFallback(
      ['a', 'b', 'c'],
      1000,
      never,
      (model) =>
        model === 'c'
          ? Promise.resolve(`from ${model}`)
          : Promise.reject(new LlmError('down', 'unreachable')),
      { onFallback: (from, to, why) => moves.push(`${from}>${to}:${why}`) },
    );
    expect(answer).toBe('from c');
    expect(moves).toEqual(['a>b:unreachable', 'b>c:unreachable']);
  });

  it('throws the last model’s error, and a 4xx at once', async () => {
    const asked: string[] = [];
    const bad = new LlmError('bad request', 'upstream', false, 400);
    await expect(
      callWithFallback(['a', 'b'], 1000, never, (model) => {
        asked.push(model);
        return Promise.reject(bad);
      }),
    ).rejects.toBe(bad);
    expect(asked).toEqual(['a']);
    const last = new LlmError('last', 'unreachable');
    await expect(
      callWithFallback(['a', 'b'], 1000, never, (model) =>
        Promise.reject(model === 'b' ? last : new LlmError('first', 'unreachable')),
      ),
    ).rejects.toBe(last);
  });

  it('abandons a model slower than the timeout (its request is aborted) and asks the next', async () => {
    let abortedA = false;
    const answer = await callWithFallback(['a', 'b'], 50, never, (model, signal) => {
      if (model === 'b') return Promise.resolve('b');
      return new Promise((_, reject) =>
        signal.addEventListener('abort', () => {
          abortedA = true;
          reject(signal.reason as Error);
        }),
      );
    });
    expect(answer).toBe('b');
    expect(abortedA).toBe(true);
  });

  it("never falls back on the caller's abort", async () => {
    const caller = new AbortController();
    const asked: string[] = [];
    const call = callWithFallback(['a', 'b'], 10_000, caller.signal, (model, signal) => {
      asked.push(model);
      return new Promise((_, reject) =>
        signal.addEventListener('abort', () => reject(signal.reason as Error)),
      );
    });
    caller.abort(new Error('shutdown'));
    await expect(call).rejects.toThrow('shutdown');
    expect(asked).toEqual(['a']);
  });

  it('keeps a committed call with its model, past the timeout and through its error', async () => {
    const asked: string[] = [];
    const failure = new LlmError('broke mid-stream', 'unreachable');
    const call = callWithFallback(['a', 'b'], 20, never, async (model, _signal, commit) => {
      asked.push(model);
      commit();
      await new Promise((resolve) => setTimeout(resolve, 60));
      throw failure;
    });
    await expect(call).rejects.toBe(failure);
    expect(asked).toEqual(['a']);
  });
});

describe('refusesResponseFormat', () => {
  it('is a 400 whose message names response_format or json_schema', () => {
    const of = (status: number, message: string) =>
      refusesResponseFormat(new LlmError(message, 'upstream', false, status));
    expect(of(400, "the model server answered 400: Unknown parameter: 'response_format'")).toBe(
      true,
    );
    expect(of(400, 'json_schema is not supported by this model')).toBe(true);
    expect(of(400, 'context length exceeded')).toBe(false);
    expect(of(500, 'response_format crashed us')).toBe(false);
  });
});
