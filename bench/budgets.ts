// The `hermesx-budget` system: HermesX with every model call under budgets, so each one goes
// through the reservation before it and the settle after it (src/usage/metered-step.ts). The
// bench model is priced (MODEL_PRICES_FILE), every bench tenant has a monthly budget and every
// bench job a daily budget and a per-run token cap, all far beyond what a run of the bench can
// spend: none is ever hit, so the runs are the same as without budgets and only their cost shows.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../src/config.js';

/** What the budgeted replicas and jobs get. */
export interface BenchBudgets {
  /** MODEL_PRICES_FILE of the replicas: the bench model's price. */
  pricesFile: string;
  tenantMonthlyMicros: number;
  jobDailyMicros: number;
  jobRunTokens: number;
}

/** $1 per million prompt tokens, $4 per million completion tokens: any price would do. */
const BENCH_PRICE = { input: 1_000_000, cached_input: 500_000, output: 4_000_000 };

/**
 * Writes the price file (the replicas' model: LLM_MODEL's default, which the bench model server
 * answers as) and returns the budgets. A call's worst case is a few thousand tokens, a few
 * thousand micro-dollars at this price; 10¹² micro-dollars a month and a day, and 10⁸ tokens a
 * run (the API's largest), are never reached.
 */
export function benchBudgets(workDir: string): BenchBudgets {
  const pricesFile = path.join(workDir, 'bench-prices.json');
  const model = loadConfig({}).llm.model;
  writeFileSync(pricesFile, JSON.stringify({ [model]: BENCH_PRICE }));
  return {
    pricesFile,
    tenantMonthlyMicros: 1e12,
    jobDailyMicros: 1e12,
    jobRunTokens: 100_000_000,
  };
}
