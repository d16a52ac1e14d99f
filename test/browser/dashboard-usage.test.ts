// Usage and cost in the dashboard, in a real Chromium against a real `saas-api`: two jobs run at
// known prices on the fake model server; the usage page shows the month's spend against the
// tenant's budget, the cost per day by job, the top jobs and the model; the job page its
// month-to-date cost and cost per run; the run detail each call's tokens and cost.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/process-wait.js';
import { startDashboardService, type DashboardService } from './service.js';

let service: DashboardService;
let tenantKey: string;
let tenantId: string;

// 50 prompt tokens (20 cached) at $1 and $0.50 per million, 500 completion at $2: $0.001040.
const USAGE = { prompt_tokens: 50, cached_tokens: 20, completion_tokens: 500 };

beforeAll(async () => {
  const prices = path.join(os.tmpdir(), `hermesx-browser-prices-${process.pid}.json`);
  writeFileSync(
    prices,
    JSON.stringify({
      'fake-model': { input: 1_000_000, cached_input: 500_000, output: 2_000_000 },
    }),
  );
  service = await startDashboardService('usage', {
    LLM_MODEL: 'fake-model',
    MODEL_PRICES_FILE: prices,
    // Each call then reserves about $0.0013 (600 completion tokens at most), within the budgets.
    BUDGET_RESERVE_MAX_TOKENS: '600',
  });
  service.llm.setHandler(() => ({ content: 'done', usage: USAGE }));
  tenantKey = await service.driver.tenantWithKey('Usage Inc');
  const tenants = await service.driver.api<{ data: { id: string; name: string }[] }>(
    'GET',
    '/v1/tenants',
  );
  tenantId = tenants.data.find((t) => t.name === 'Usage Inc')?.id ?? '';
}, 180_000);

afterAll(async () => {
  await service?.stop();
});

describe('usage in the dashboard', () => {
  const api = <T>(method: string, route: string, body?: unknown) =>
    service.driver.api<T>(method, route, body, tenantKey);

  it('shows the budget, cost per day by job, top jobs, the model, job and run costs', async () => {
    // Runs by hand back to back (no minimum interval between them).
    await service.driver.api('PATCH', `/v1/tenants/${tenantId}`, {
      min_schedule_interval_seconds: 0,
    });
    await service.driver.api('PUT', `/v1/admin/tenants/${tenantId}/budget`, {
      monthly_budget_micros: 10_000,
      monthly_budget_tokens: null,
    });
    const jobs: { id: string }[] = [];
    for (const name of ['Morning digest', 'Inbox triage']) {
      jobs.push(
        await api<{ id: string }>('POST', '/v1/cron-jobs', {
          name,
          schedule: '0 6 * * *',
          prompt: 'Do it',
          daily_budget_micros: 5000,
        }),
      );
    }
    const runsOf = (id: string) =>
      api<{ data: { id: string; status: string; cost_micros: number | null }[] }>(
        'GET',
        `/v1/cron-jobs/${id}/runs`,
      );
    // Three runs of the first job, one of the second.
    for (const [job, times] of [
      [jobs[0]!, 3],
      [jobs[1]!, 1],
    ] as const) {
      for (let i = 0; i < times; i++) {
        await api('POST', `/v1/cron-jobs/${job.id}/trigger`, {});
        await waitFor(
          async () => {
            const runs = await runsOf(job.id);
            expect(runs.data.filter((r) => r.status === 'success')).toHaveLength(i + 1);
          },
          { timeoutMs: 30_000, intervalMs: 200, what: 'the run to succeed' },
        );
      }
    }
    const runs = await runsOf(jobs[0]!.id);
    expect(runs.data.map((r) => r.cost_micros)).toEqual([1040, 1040, 1040]);

    const page = await service.driver.newPage();
    await service.driver.signIn(page, tenantKey);
    await page.getByRole('link', { name: 'Usage' }).click();
    await page.getByRole('heading', { name: 'Usage' }).waitFor();
    const budget = page.getByTestId('usage-budget');
    await budget.getByText('$0.004160').waitFor();
    await budget.getByText('$0.010000').waitFor();
    await budget.getByText('$0.005840').waitFor();
    await page.getByRole('img', { name: /Cost per day over 1 days/ }).waitFor();
    await page.getByRole('row', { name: /Morning digest.*\$0\.003120.*3 calls/ }).waitFor();
    await page.getByRole('row', { name: /Inbox triage.*\$0\.001040.*1 calls/ }).waitFor();
    await page.getByRole('row', { name: /fake-model.*\$0\.004160/ }).waitFor();
    await service.driver.scanBoth(page, 'usage');
    await service.driver.shoot(page, 'usage', true);

    await page.goto(`${service.pod.url}/jobs/${jobs[0]!.id}`);
    await page.getByTestId('job-month-cost').getByText('$0.003120').waitFor();
    await page.getByText('$0.001040 (average of 3)').waitFor();
    await page.getByText('$0.005000').waitFor();
    // The job form shows the daily budget in dollars and saves it back in micro-dollars.
    await page.getByRole('link', { name: 'Edit' }).click();
    await expect(page.getByLabel('Daily budget (USD)').inputValue()).resolves.toBe('0.005');
    await page.getByLabel('Daily budget (USD)').fill('0.0075');
    await page.getByLabel('Tokens per run').fill('20000');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('$0.007500').waitFor();
    const saved = await api<{ daily_budget_micros: number; max_run_tokens: number }>(
      'GET',
      `/v1/cron-jobs/${jobs[0]!.id}`,
    );
    expect(saved).toMatchObject({ daily_budget_micros: 7500, max_run_tokens: 20_000 });

    await page.goto(`${service.pod.url}/jobs/${jobs[0]!.id}/runs/${runs.data[0]!.id}`);
    await page.getByTestId('run-cost').getByText('$0.001040').waitFor();
    await page.getByRole('row', { name: /1 fake-model 50 \(20\) 500 \$0\.001040/ }).waitFor();
    await service.driver.shoot(page, 'usage-run');
    expect(service.driver.cspViolations).toEqual([]);
    await page.close();
  });
});
