// The usage pieces of one process: prices, budget limits and counters, metrics, warnings. One
// set, shared by the scheduled runs and the chat (main.ts builds it; buildApp builds its own
// when given none, as the tests do).
import { readFileSync } from 'node:fs';
import type { Registry } from 'prom-client';
import type { Pool } from '../db/pool.js';
import type { Logger } from '../log.js';
import type { Redis } from '../redis/connection.js';
import { createBudgetStore } from './budget-store.js';
import { createBudgetLimits } from './budgets.js';
import type { ModelPrice } from './cost.js';
import { sendBudgetWarning } from './ledger.js';
import type { UsageDeps } from './metered-step.js';
import { createPriceBook, parsePriceFile } from './prices.js';
import { createUsageMetrics } from './usage-metrics.js';

export interface UsageSettings {
  modelPricesFile: string | undefined;
  budgetReserveMaxTokens: number;
  defaultModel: string;
}

export function createUsage(options: {
  pool: Pool;
  redis: Redis | undefined;
  registry: Registry;
  log: Logger;
  settings: UsageSettings;
  now?: () => Date;
}): UsageDeps {
  const { pool, redis, settings, log } = options;
  return {
    pool,
    prices: createPriceBook(pool, readPriceFile(settings.modelPricesFile)),
    budgets: redis ? createBudgetStore(redis) : undefined,
    limits: createBudgetLimits(pool),
    reserveMaxTokens: settings.budgetReserveMaxTokens,
    defaultModel: settings.defaultModel,
    now: options.now ?? (() => new Date()),
    metrics: createUsageMetrics(options.registry),
    onWarning: sendBudgetWarning(pool, log),
    log,
  };
}

/** MODEL_PRICES_FILE, read once at start; a file that does not parse stops startup. */
export function readPriceFile(path: string | undefined): Map<string, ModelPrice> {
  if (!path) return new Map();
  try {
    return parsePriceFile(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(
      `MODEL_PRICES_FILE=${path}: expected JSON {"<model>": {"input": n, "cached_input": n, "output": n}} in micro-dollars per million tokens (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`,
      { cause: err },
    );
  }
}
