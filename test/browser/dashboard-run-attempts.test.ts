// The run page's attempts in a real Chromium against a real `saas-api`: a run its retry policy
// ran again says "Attempt 2 of 3 · 2 model calls", lists its earlier attempt (times to the
// millisecond, the model server's redacted first line), and keeps its lateness apart from the
// wait for the retry; the job page's run list does the same (lag of the first attempt, retry
// wait, attempt and model calls in their own columns); with the model server gone, the jobs and
// run pages say so in a banner.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/process-wait.js';
import { screenshotDir, seriousOrWorse } from './page-checks.js';
import { startDashboardService, type DashboardService } from './service.js';

let service: DashboardService;
let tenantKey: string;
let runPath = '';
const MILLISECONDS = /\d{2}:\d{2}:\d{2}\.\d{3}/;
/** formatDuration's words: milliseconds under a second, then seconds to a tenth. */
const DURATION = /^(\d+ ms|\d+\.\d s)$/;

interface ListedRun {
  id: string;
  status: string;
  attempt: number;
  model_requests: number;
  start_lag_ms: number | null;
  retry_wait_ms: number;
}

beforeAll(async () => {
  service = await startDashboardService('attempts');
  tenantKey = await service.driver.tenantWithKey('Attempts Inc');
  let calls = 0;
  service.llm.setHandler((body) => {
    if (!JSON.stringify(body).includes('Retried digest')) return { content: 'ok' };
    calls += 1;
    // Attempt 1: one model call, a 502. Attempt 2: a 429 sent again, then the answer.
    if (calls === 1) {
      return {
        status: 502,
        errorMessage:
          'upstream https://svc:hunter2@10.1.2.3:8443/v1 refused by gpu-7.internal.corp',
      };
    }
    if (calls === 2) return { status: 429, headers: { 'retry-after': '0' } };
    return { content: 'Two incidents are open.' };
  });
}, 180_000);

afterAll(async () => {
  await service?.stop();
});

describe('attempts and model calls on the run page, in Chromium', () => {
  const api = <T>(method: string, path: string, body?: unknown) =>
    service.driver.api<T>(method, path, body, tenantKey);

  it('names the attempt apart from its model calls and lists the earlier attempt', async () => {
    const job = await api<{ id: string }>('POST', '/v1/cron-jobs', {
      name: 'Retried digest',
      schedule: '0 6 * * *',
      prompt: 'Retried digest',
      retry: { max_attempts: 3, backoff: '1s' },
    });
    await api('POST', `/v1/cron-jobs/${job.id}/trigger`, {});
    const listed = await waitFor(
      async () => {
        const runs = await api<{ data: ListedRun[] }>('GET', `/v1/cron-jobs/${job.id}/runs`);
        expect(runs.data[0]).toMatchObject({ status: 'success', attempt: 2 });
        return runs.data[0]!;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: 'the second attempt to succeed' },
    );
    // The list names model calls apart and keeps the 1 s back-off out of the lag.
    expect(listed.model_requests).toBe(2);
    expect(listed.retry_wait_ms).toBeGreaterThanOrEqual(1000);
    expect(listed.start_lag_ms).not.toBeNull();
    expect(listed.start_lag_ms!).toBeLessThan(listed.retry_wait_ms);
    const runId = listed.id;
    runPath = `/jobs/${job.id}/runs/${runId}`;
    const page = await service.driver.newPage();
    await service.driver.signIn(page, tenantKey);
    await page.getByRole('link', { name: 'Retried digest' }).click();
    const row = page.locator(`table.runs tbody tr:has(a[href="${runPath}"])`);
    await row.waitFor();
    const column = (label: string) => row.locator(`td[data-label="${label}"]`);
    expect(await column('Attempt').textContent()).toBe('2 of 3');
    expect(await column('Model calls').textContent()).toBe('2');
    expect(await column('Lag').textContent()).toMatch(DURATION);
    expect(await column('Retry wait').textContent()).toMatch(/^\d+\.\d s$/);
    expect(await page.locator('table.runs thead').textContent()).not.toMatch(/Start lag|Attempts/);
    await page.locator('table.runs').screenshot({
      path: path.join(screenshotDir(), 'dashboard-job-run-attempts-table.png'),
    });
    await page.locator(`a[href="${runPath}"]`).click();
    await page.getByText('Attempt 2 of 3 · 2 model calls').waitFor();
    await page.getByText(/^started .+ after its nominal time \(first attempt\)$/).waitFor();
    await page.getByText(/^waited .+ for retries$/).waitFor();
    await page.getByRole('heading', { name: 'Earlier attempts' }).waitFor();
    const earlier = page.locator('table.earlier-attempts tbody tr');
    expect(await earlier.count()).toBe(1);
    const cell = (label: string) => earlier.locator(`td[data-label="${label}"]`);
    expect(await cell('Attempt').textContent()).toBe('1');
    expect(await cell('Error kind').textContent()).toBe('model_error');
    expect(await cell('Model calls').textContent()).toBe('1');
    expect(await cell('Started').textContent()).toMatch(MILLISECONDS);
    expect(await cell('Ended').textContent()).toMatch(MILLISECONDS);
    const error = (await cell('Error').textContent()) ?? '';
    expect(error).toContain('"upstream [url] refused by [host]"');
    expect(error).not.toMatch(/hunter2|10\.1\.2\.3|gpu-7/);
    // The run's own instants, to the millisecond too.
    const facts = (await page.locator('dl.facts').first().textContent()) ?? '';
    expect(facts).toMatch(MILLISECONDS);
    expect(facts).toContain('Attempt 2 claimed');
    expect(await page.locator('dl.facts').nth(1).textContent()).toContain('2 in attempt 2');
    await service.driver.scanBoth(page, 'run-attempts');
    await service.driver.shoot(page, 'run-attempts', true);
    await page.close();
  });

  it('says so on the jobs and run pages when the model server does not answer', async () => {
    await service.llm.close();
    const page = await service.driver.newPage();
    await service.driver.signIn(page, tenantKey);
    const banner = page
      .getByRole('status')
      .filter({ hasText: 'The model server is not answering' });
    // The service asks the model server at most every 10 s: reload until it has noticed.
    await waitFor(
      async () => {
        await page.reload();
        await page.getByRole('heading', { name: 'Jobs' }).waitFor();
        await banner.waitFor({ timeout: 2000 });
      },
      { timeoutMs: 30_000, intervalMs: 500, what: 'the banner on the jobs page' },
    );
    expect(await banner.textContent()).toContain('docs/operations.md');
    await service.driver.scanBoth(page, 'jobs-model-down');
    await service.driver.shoot(page, 'jobs-model-down');
    await page.goto(new URL(runPath, service.pod.url).toString());
    await page.getByText('Attempt 2 of 3 · 2 model calls').waitFor();
    await banner.waitFor();
    await page.close();
  });

  it('has no serious or critical axe violations and no CSP violations', () => {
    expect(service.driver.axe.length).toBeGreaterThanOrEqual(4);
    expect(seriousOrWorse(service.driver.axe)).toEqual([]);
    expect(service.driver.cspViolations).toEqual([]);
  });
});
