// /metrics: tokens and cost by model. No tenant label (bounded cardinality); the model label is
// a priced model's name or "unpriced", so only the operator's price list can add series.
import { Counter, type Registry } from 'prom-client';
import type { CallTokens } from './cost.js';

export interface UsageMetrics {
  count(model: string, tokens: CallTokens, costMicros: number | null, priced: boolean): void;
}

export function createUsageMetrics(registry: Registry): UsageMetrics {
  const registers = [registry];
  const tokens = new Counter({
    name: 'hermesx_usage_tokens_total',
    help: 'Tokens of model calls by model (priced models; others as "unpriced") and kind (prompt, cached, completion)',
    labelNames: ['model', 'kind'],
    registers,
  });
  const cost = new Counter({
    name: 'hermesx_usage_cost_micros_total',
    help: 'Cost of model calls in micro-dollars by model (calls of unpriced models add nothing)',
    labelNames: ['model'],
    registers,
  });
  return {
    count(model, used, costMicros, priced) {
      const label = priced ? model : 'unpriced';
      tokens.inc({ model: label, kind: 'prompt' }, used.promptTokens);
      tokens.inc({ model: label, kind: 'cached' }, used.cachedTokens);
      tokens.inc({ model: label, kind: 'completion' }, used.completionTokens);
      if (costMicros !== null) cost.inc({ model: label }, costMicros);
    },
  };
}
