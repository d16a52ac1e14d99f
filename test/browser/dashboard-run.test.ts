// The run detail page in a real Chromium against a real `saas-api`: reached from the job's run
// history, it shows the whole answer (longer than a list shows), the origin, the model, the
// prompt as sent and the attempts; and a retrying run says so while it runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/process-wait.js';
import { seriousOrWorse } from './page-checks.js';
import { startDashboardService, type DashboardService } from './service.js';

let service: DashboardService;
let tenantKey: string;
// The flaky model's third call waits for this, so the run is still retrying when the page shows.
let releaseFlaky: () => void = () => {};
const flakyReleased = new Promise<void>((resolve) => (releaseFlaky = resolve));
const answer = `Long report: ${'all systems nominal. '.repeat(600)}END OF REPORT`;

beforeAll(async () => {
  service = await startDashboardService('run');
  tenantKey = await service.driver.tenantWithKey('Run Detail Inc');
  let retryCalls = 0;
  service.llm.setHandler(async (body) => {
    const text = JSON.stringify(body);
    if (text.includes('Flaky model')) {
      retryCalls += 1;
      // Throttled twice, then answered only once the test has seen the page: however slow the
      // browser, it finds the run retrying.
      if (retryCalls <= 2) return { status: 429, headers: { 'retry-after': '0.2' } };
      await flakyReleased;
      return { content: 'ok' };
    }
    return { content: answer, model: 'served-model-v2' };
  });
}, 180_000);

afterAll(async () => {
  releaseFlaky();
  await service?.stop();
});

describe('run detail page, in Chromium', () => {
  const api = <T>(method: string, path: string, body?: unknown) =>
    service.driver.api<T>(method, path, body, tenantKey);

  it('opens from the run history and shows the whole run', async () => {
    const job = await api<{ id: string }>('POST', '/v1/cron-jobs', {
      name: 'Long report',
      schedule: '0 6 * * *',
      prompt: 'Write the long report',
    });
    await api('POST', `/v1/cron-jobs/${job.id}/trigger`, {});
    await waitFor(
      async () => {
        const runs = await api<{ data: { status: string }[] }>(
          'GET',
          `/v1/cron-jobs/${job.id}/runs`,
        );
        expect(runs.data[0]?.status).toBe('success');
      },
      { timeoutMs: 30_000, intervalMs: 200, what: 'the run to succeed' },
    );
    const page = await service.driver.newPage();
    await service.driver.signIn(page, tenantKey);
    await page.getByRole('link', { name: 'Long report' }).click();
    await page.locator('table.runs tbody tr[data-status="success"] a').first().click();
    await page.getByRole('heading', { name: /Run of Long report/ }).waitFor();
    await page.getByText('Run now (manual)').waitFor();
    // The model card's answer (the model calls table names it again, per call).
    await page.getByRole('definition').filter({ hasText: 'served-model-v2' }).waitFor();
    const result = await page.locator('pre.result-text').textContent();
    expect(result).toBe(answer);
    expect(answer.length).toBeGreaterThan(8192);
    await page.getByRole('heading', { name: 'system' }).waitFor();
    expect(await page.locator('.message pre').nth(1).textContent()).toBe('Write the long report');
    await page.getByRole('cell', { name: 'answered', exact: true }).waitFor();
    await service.driver.scanBoth(page, 'run');
    await service.driver.shoot(page, 'run', true);
    // Back to the job through the crumb.
    await page.getByRole('link', { name: '← Long report' }).click();
    await page.getByRole('heading', { name: 'Long report' }).waitFor();
    await page.close();
  });

  it('shows a run that is retrying while it runs', async () => {
    const job = await api<{ id: string }>('POST', '/v1/cron-jobs', {
      name: 'Flaky model',
      schedule: '0 6 * * *',
      prompt: 'Flaky model job',
    });
    await api('POST', `/v1/cron-jobs/${job.id}/trigger`, {});
    const runId = await waitFor(
      async () => {
        const runs = await api<{ data: { id: string; status: string; attempts: number }[] }>(
          'GET',
          `/v1/cron-jobs/${job.id}/runs`,
        );
        expect(runs.data[0]?.status).toBe('running');
        expect(runs.data[0]?.attempts).toBeGreaterThan(1);
        return runs.data[0]?.id as string;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: 'the run to retry' },
    );
    const page = await service.driver.newPage();
    await service.driver.signIn(page, tenantKey);
    await page.getByRole('link', { name: 'Flaky model' }).click();
    // The job page names the model calls apart from the attempt: the running attempt has sent more
    // than one (the first was throttled), and it is still attempt 1.
    const row = page.locator(`table.runs tbody tr[data-status="running"]`).first();
    await row.locator('td[data-label="Attempt"]').filter({ hasText: /^1/ }).waitFor();
    await waitFor(
      async () =>
        expect(
          Number(await row.locator('td[data-label="Model calls"]').textContent()),
        ).toBeGreaterThan(1),
      { timeoutMs: 20_000, intervalMs: 200, what: 'the job page to show the model calls' },
    );
    await page.locator(`a[href="/jobs/${job.id}/runs/${runId}"]`).click();
    await page.getByRole('status').filter({ hasText: 'Retrying: attempt' }).waitFor();
    expect(await page.getByRole('status').textContent()).toContain('throttled (429), sent again');
    releaseFlaky();
    await page.close();
  });

  it('has no serious or critical axe violations and no CSP violations', () => {
    expect(service.driver.axe.length).toBeGreaterThanOrEqual(2);
    expect(seriousOrWorse(service.driver.axe)).toEqual([]);
    expect(service.driver.cspViolations).toEqual([]);
  });
});
