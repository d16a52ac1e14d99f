import { describe, expect, it } from 'vitest';
import { costMicros, estimatePromptTokens, readUsage } from '../../src/usage/cost.js';
import { periodOf } from '../../src/usage/periods.js';

const price = {
  inputMicrosPerMTok: 2_500_000, // $2.50 per 1M
  cachedInputMicrosPerMTok: 1_250_000,
  outputMicrosPerMTok: 10_000_000,
};

describe('costMicros', () => {
  it('prices uncached input, cached input and output separately, exactly', () => {
    // 1,000 prompt (400 cached) and 500 completion:
    // 600 * 2.5 + 400 * 1.25 + 500 * 10 = 1500 + 500 + 5000 = 7000 micro-dollars
    expect(
      costMicros({ promptTokens: 1000, cachedTokens: 400, completionTokens: 500 }, price),
    ).toBe(7000);
  });

  it('rounds up to the next micro-dollar once per call', () => {
    // 1 input token at 2.5 micro-dollars per token = 2.5 -> 3
    expect(costMicros({ promptTokens: 1, cachedTokens: 0, completionTokens: 0 }, price)).toBe(3);
    // 0.1 micro-dollar is still 1
    const cheap = {
      inputMicrosPerMTok: 100_000,
      cachedInputMicrosPerMTok: 0,
      outputMicrosPerMTok: 0,
    };
    expect(costMicros({ promptTokens: 1, cachedTokens: 0, completionTokens: 0 }, cheap)).toBe(1);
    expect(costMicros({ promptTokens: 0, cachedTokens: 0, completionTokens: 0 }, cheap)).toBe(0);
  });

  it('is null without a price: unknown, never guessed', () => {
    expect(
      costMicros({ promptTokens: 10, cachedTokens: 0, completionTokens: 10 }, null),
    ).toBeNull();
  });

  it('bills no more cached tokens than prompt tokens and ignores garbage', () => {
    expect(costMicros({ promptTokens: 100, cachedTokens: 1000, completionTokens: -5 }, price)).toBe(
      125,
    );
  });

  it('stays exact far past 2^53 micro-dollar-tokens', () => {
    const big = {
      inputMicrosPerMTok: 1_000_000_000,
      cachedInputMicrosPerMTok: 0,
      outputMicrosPerMTok: 0,
    };
    expect(
      costMicros({ promptTokens: 10_000_000_000, cachedTokens: 0, completionTokens: 0 }, big),
    ).toBe(10_000_000_000_000);
  });
});

describe('readUsage', () => {
  it('reads prompt, cached and completion tokens from an answer', () => {
    expect(
      readUsage({
        prompt_tokens: 12,
        completion_tokens: 7,
        total_tokens: 19,
        prompt_tokens_details: { cached_tokens: 4 },
      }),
    ).toEqual({ promptTokens: 12, cachedTokens: 4, completionTokens: 7 });
    expect(readUsage(undefined)).toEqual({ promptTokens: 0, cachedTokens: 0, completionTokens: 0 });
    expect(readUsage({ prompt_tokens: 'x', prompt_tokens_details: null })).toEqual({
      promptTokens: 0,
      cachedTokens: 0,
      completionTokens: 0,
    });
  });
});

describe('estimatePromptTokens', () => {
  it('is bytes / 4 rounded up', () => {
    expect(estimatePromptTokens(0)).toBe(0);
    expect(estimatePromptTokens(1)).toBe(1);
    expect(estimatePromptTokens(400)).toBe(100);
    expect(estimatePromptTokens(401)).toBe(101);
  });
});

describe('periodOf', () => {
  it('turns months and days over in UTC', () => {
    const now = new Date('2026-12-31T23:59:59.999Z');
    expect(periodOf('month', now)).toEqual({
      label: '2026-12',
      startsAt: new Date('2026-12-01T00:00:00Z'),
      resetsAt: new Date('2027-01-01T00:00:00Z'),
    });
    expect(periodOf('day', now)).toEqual({
      label: '2026-12-31',
      startsAt: new Date('2026-12-31T00:00:00Z'),
      resetsAt: new Date('2027-01-01T00:00:00Z'),
    });
    expect(periodOf('day', new Date('2027-01-01T00:00:00Z')).label).toBe('2027-01-01');
  });
});
