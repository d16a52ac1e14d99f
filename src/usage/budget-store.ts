// Budget counters in Redis, one hash per budget and period: `used` (spent plus reserved by calls
// in flight) and `spent` (settled). A model call reserves its worst case against every budget it
// falls under in one Lua script (all or none), then settles to what it really used. Redis runs
// each script alone, so pods never both take the last room of a budget. The keys of one tenant
// share a hash tag ({tenant}), so the script also runs on Redis Cluster.
import type { Redis } from '../redis/connection.js';

/** One budget a call falls under, in one unit (micro-dollars or tokens). */
export interface BudgetLine {
  /** The hash's key: hermesx:budget:{tenant}:… */
  key: string;
  limit: number;
  /** Seconds the counter lives (past its period's end, so a late settle still finds it). */
  ttlSeconds: number;
  /** What the period has spent so far per the ledger: seeds a counter Redis lost or never had. */
  seed: () => Promise<number>;
}

// KEYS: the budgets' hashes. ARGV: amount and limit of each. Returns 0 when reserved, -i when
// budget i has no counter yet (seed it, ask again), i when budget i has no room.
const RESERVE = `
local n = #KEYS
for i = 1, n do
  local used = redis.call('HGET', KEYS[i], 'used')
  if not used then return -i end
  used = tonumber(used)
  local limit = tonumber(ARGV[2 * i])
  if used >= limit or used + tonumber(ARGV[2 * i - 1]) > limit then return i end
end
for i = 1, n do redis.call('HINCRBY', KEYS[i], 'used', ARGV[2 * i - 1]) end
return 0`;

// KEYS[1] a budget's hash. ARGV: the ledger's sum, ttl seconds. Only when absent.
const SEED = `
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'used', ARGV[1], 'spent', ARGV[1])
  redis.call('EXPIRE', KEYS[1], ARGV[2])
end
return 1`;

// KEYS: the budgets' hashes. ARGV: per budget the reserved amount, the real one, the limit.
// Returns, per budget, 1 when this settle took its spending to 80 % of the limit or past it for
// the first time in the period (the warning is sent once), else 0.
const SETTLE = `
local out = {}
for i = 1, #KEYS do
  local reserved = tonumber(ARGV[3 * i - 2])
  local actual = tonumber(ARGV[3 * i - 1])
  local limit = tonumber(ARGV[3 * i])
  redis.call('HINCRBY', KEYS[i], 'used', actual - reserved)
  local spent = redis.call('HINCRBY', KEYS[i], 'spent', actual)
  out[i] = 0
  if spent * 5 >= limit * 4 and redis.call('HSETNX', KEYS[i], 'warned', '1') == 1 then
    out[i] = 1
  end
end
return out`;

type BudgetRedis = Redis & {
  hxBudgetReserve(...args: (string | number)[]): Promise<number>;
  hxBudgetSeed(key: string, sum: number, ttl: number): Promise<number>;
  hxBudgetSettle(...args: (string | number)[]): Promise<number[]>;
};

export interface BudgetStore {
  /** Reserves `amounts[i]` against `lines[i]`, all or none; the index of a full budget, or null. */
  reserve(lines: readonly BudgetLine[], amounts: readonly number[]): Promise<number | null>;
  /** Settles a reservation to what was used; the indexes of budgets that just passed 80 %. */
  settle(
    lines: readonly BudgetLine[],
    reserved: readonly number[],
    actual: readonly number[],
  ): Promise<number[]>;
  /** Spent and in flight of a budget this period (0 when Redis has no counter). */
  read(key: string): Promise<{ used: number; spent: number }>;
}

export function createBudgetStore(redis: Redis): BudgetStore {
  const client = redis as BudgetRedis;
  client.defineCommand('hxBudgetReserve', { lua: RESERVE });
  client.defineCommand('hxBudgetSeed', { numberOfKeys: 1, lua: SEED });
  client.defineCommand('hxBudgetSettle', { lua: SETTLE });
  return {
    async reserve(lines, amounts) {
      if (lines.length === 0) return null;
      const keys = lines.map((line) => line.key);
      const args = lines.flatMap((line, i) => [amounts[i] ?? 0, line.limit]);
      // Each pass seeds at most one missing counter; a call falls under at most a few budgets.
      for (let pass = 0; pass <= lines.length; pass++) {
        const answer = await client.hxBudgetReserve(keys.length, ...keys, ...args);
        if (answer === 0) return null;
        if (answer > 0) return answer - 1;
        const line = lines[-answer - 1] as BudgetLine;
        await client.hxBudgetSeed(line.key, await line.seed(), line.ttlSeconds);
      }
      throw new Error('budget counters vanished while being seeded');
    },
    async settle(lines, reserved, actual) {
      if (lines.length === 0) return [];
      const keys = lines.map((line) => line.key);
      const args = lines.flatMap((line, i) => [reserved[i] ?? 0, actual[i] ?? 0, line.limit]);
      const answer = await client.hxBudgetSettle(keys.length, ...keys, ...args);
      return answer.flatMap((flag, i) => (flag === 1 ? [i] : []));
    },
    async read(key) {
      const [used, spent] = await redis.hmget(key, 'used', 'spent');
      return { used: Number(used ?? 0), spent: Number(spent ?? 0) };
    },
  };
}
