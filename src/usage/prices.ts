// The operator's prices: MODEL_PRICES_FILE, overridden by the admin API's rows (model_prices).
// Each pod reads the table again at most every PRICE_REFRESH_MS, so a price set on one pod
// applies on every pod within that time.
import { z } from 'zod';
import type { Pool } from '../db/pool.js';
import type { ModelPrice } from './cost.js';

export const PRICE_REFRESH_MS = 10_000;

const MICROS = z.number().int().min(0).max(1e12);

/** One model's price as the file and the API give it: micro-dollars per million tokens. */
export const PriceInput = z.object({
  input: MICROS.describe('micro-dollars per million uncached prompt tokens'),
  cached_input: MICROS.describe('micro-dollars per million cached prompt tokens'),
  output: MICROS.describe('micro-dollars per million completion tokens'),
});

export const PriceFile = z.record(z.string().min(1).max(200), PriceInput);

/** MODEL_PRICES_FILE's JSON: {"model": {"input": …, "cached_input": …, "output": …}}. */
export function parsePriceFile(text: string): Map<string, ModelPrice> {
  const parsed = PriceFile.parse(JSON.parse(text));
  return new Map(Object.entries(parsed).map(([model, price]) => [model, toModelPrice(price)]));
}

export function toModelPrice(price: z.infer<typeof PriceInput>): ModelPrice {
  return {
    inputMicrosPerMTok: price.input,
    cachedInputMicrosPerMTok: price.cached_input,
    outputMicrosPerMTok: price.output,
  };
}

export interface PriceBook {
  /** The model's price; null: none (its calls' cost is unknown). */
  priceOf(model: string): Promise<ModelPrice | null>;
  /** Read the table again on the next ask (after this pod changed it). */
  invalidate(): void;
}

export function createPriceBook(
  pool: Pool,
  filePrices: ReadonlyMap<string, ModelPrice>,
  nowMs: () => number = Date.now,
): PriceBook {
  let loaded: { atMs: number; prices: Map<string, ModelPrice> } | undefined;
  let loading: Promise<Map<string, ModelPrice>> | undefined;
  const load = async () => {
    const { rows } = await pool.query<{
      model: string;
      input_micros_per_mtok: string;
      cached_input_micros_per_mtok: string;
      output_micros_per_mtok: string;
    }>(
      'SELECT model, input_micros_per_mtok, cached_input_micros_per_mtok, output_micros_per_mtok FROM model_prices',
    );
    const prices = new Map(filePrices);
    for (const row of rows) {
      prices.set(row.model, {
        inputMicrosPerMTok: Number(row.input_micros_per_mtok),
        cachedInputMicrosPerMTok: Number(row.cached_input_micros_per_mtok),
        outputMicrosPerMTok: Number(row.output_micros_per_mtok),
      });
    }
    loaded = { atMs: nowMs(), prices };
    return prices;
  };
  return {
    async priceOf(model) {
      let prices = loaded && nowMs() - loaded.atMs < PRICE_REFRESH_MS ? loaded.prices : undefined;
      if (!prices) {
        // One read at a time per pod; a failed read keeps the last prices it had.
        loading ??= load().finally(() => (loading = undefined));
        prices = await loading.catch((err: unknown) => {
          if (loaded) return loaded.prices;
          throw err;
        });
      }
      return prices.get(model) ?? null;
    },
    invalidate() {
      loaded = undefined;
    },
  };
}
