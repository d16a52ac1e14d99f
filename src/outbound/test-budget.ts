// Test sends (a channel's test message, an MCP server's test) reach a tenant-chosen address on
// request, so a tenant's request rate alone would let it aim the service at a third party: they
// share one budget per tenant per hour, counted in Redis across replicas (OUTBOUND_TESTS_PER_HOUR).
import { CommandError } from '../jobs/commands.js';

/** Spends one of the tenant's tests for this hour: null when allowed, else seconds until the next. */
export type SpendOutboundTest = (tenantId: string) => Promise<number | null>;

export const TEST_BUDGET_CODE = 'test_budget';

/** Throws 429 test_budget (with Retry-After) when the tenant has no test left this hour. */
export async function spendOutboundTest(
  spend: SpendOutboundTest | undefined,
  tenantId: string,
): Promise<void> {
  const waitSeconds = (await spend?.(tenantId)) ?? null;
  if (waitSeconds === null) return;
  throw new CommandError(
    TEST_BUDGET_CODE,
    `this tenant has used its outbound tests (channel and MCP server tests) for this hour (OUTBOUND_TESTS_PER_HOUR); retry in ${waitSeconds}s`,
    429,
    waitSeconds,
  );
}
