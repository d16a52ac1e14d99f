// Retries and backfill in the dashboard, in a real Chromium against a real `saas-api`: the retry
// fields of the job form (shown on the job page, cleared on edit), the job page's Backfill action
// (a repeated range adds nothing), and the Runs page's Retry button for a failed run.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboardService, type DashboardService } from './service.js';

interface JobView {
  id: string;
  name: string;
  retry: { max_attempts: number; backoff: string; after_side_effects: boolean } | null;
}

interface RunView {
  id: string;
  status: string;
  attempt: number;
  origin: string;
  scheduled_at: string;
}

let service: DashboardService;
let tenantKey: string;

beforeAll(async () => {
  service = await startDashboardService('queued');
  tenantKey = await service.driver.tenantWithKey('Queued Inc');
}, 180_000);

afterAll(async () => {
  await service?.stop();
});

describe('retries and backfill in the dashboard', () => {
  const newPage = () => service.driver.newPage();
  const signIn = (page: Page, token: string) => service.driver.signIn(page, token);
  const api = <T>(method: string, path: string, body?: unknown) =>
    service.driver.api<T>(method, path, body, tenantKey);
  /** datetime-local text for an instant, in the page's own zone. */
  const localInput = (page: Page, ms: number) =>
    page.evaluate((at) => {
      const date = new Date(at);
      return new Date(at - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    }, ms);

  it('sets a retry policy on the job form, shows it, and clears it', async () => {
    const page = await newPage();
    await signIn(page, tenantKey);
    await page.getByRole('link', { name: 'New job' }).first().click();
    await page.getByLabel('Name').fill('Retrying digest');
    await page.getByLabel('Schedule').fill('0 9 * * *');
    await page.getByLabel('Time zone').fill('UTC');
    await page.getByLabel('Prompt').fill('Digest');
    await page.getByLabel('Retry: attempts').fill('3');
    await page.getByLabel('Retry: backoff').fill('45s');
    await page.getByLabel(/Retry even after a side effect/).check();
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'Retrying digest' }).waitFor();
    await page.getByText('retries: 3 attempts, backoff 45s, even after side effects').waitFor();
    const jobs = await api<{ data: JobView[] }>('GET', '/v1/cron-jobs');
    const job = jobs.data.find((j) => j.name === 'Retrying digest')!;
    expect(job.retry).toEqual({ max_attempts: 3, backoff: '45s', after_side_effects: true });

    await page.getByRole('link', { name: 'Edit' }).click();
    await expect(page.getByLabel('Retry: attempts').inputValue()).resolves.toBe('3');
    await page.getByLabel('Retry: attempts').fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Retrying digest' }).waitFor();
    expect((await api<JobView>('GET', `/v1/cron-jobs/${job.id}`)).retry).toBeNull();
    await page.close();
  });

  it('backfills a past range from the job page; the same range again adds nothing', async () => {
    const job = await api<{ id: string }>('POST', '/v1/cron-jobs', {
      name: 'Hourly report',
      schedule: '0 * * * *',
      prompt: 'Report',
    });
    const hourMs = 3600_000;
    const to = Math.floor(Date.now() / hourMs) * hourMs;
    const from = to - 3 * hourMs;
    const page = await newPage();
    await signIn(page, tenantKey);
    await page.goto(`${service.pod.url}/jobs/${job.id}`);
    await page.getByRole('heading', { name: 'Hourly report' }).waitFor();
    await page.getByText('Backfill', { exact: true }).first().click();
    await page.getByLabel('From (your time)').fill(await localInput(page, from));
    await page.getByLabel('To (your time, not included)').fill(await localInput(page, to));
    await page.getByRole('button', { name: 'Backfill', exact: true }).click();
    await page.getByText('Backfill: 3 runs queued, 0 already had a run.').waitFor();
    await page.getByRole('button', { name: 'Backfill', exact: true }).click();
    await page.getByText('Backfill: 0 runs queued, 3 already had a run.').waitFor();
    await expect
      .poll(
        async () =>
          (
            await api<{ data: RunView[] }>(
              'GET',
              `/v1/runs?job_id=${job.id}&origin=backfill&status=success`,
            )
          ).data.length,
        { timeout: 30_000 },
      )
      .toBe(3);
    await page.close();
  });

  it('retries a failed run from the Runs page as a new attempt', async () => {
    const job = await api<{ id: string }>('POST', '/v1/cron-jobs', {
      name: 'Flaky once',
      schedule: '0 9 * * *',
      prompt: 'Flaky',
    });
    let failed = false;
    service.llm.setHandler((body) => {
      if (!JSON.stringify(body).includes('Flaky')) return { content: 'fine' };
      if (failed) return { content: 'fine now' };
      failed = true;
      return { status: 500 };
    });
    await api('POST', `/v1/cron-jobs/${job.id}/trigger`, {});
    const page = await newPage();
    await signIn(page, tenantKey);
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();
    await page.getByRole('link', { name: 'Runs', exact: true }).click();
    const failedRow = page
      .locator('table.runs tbody tr[data-status="failed"]')
      .filter({ hasText: 'Flaky once' });
    await failedRow.first().waitFor({ timeout: 30_000 });
    await failedRow.first().getByRole('button', { name: 'Retry' }).click();
    await page.getByText('Retrying the run of Flaky once').waitFor();
    await expect
      .poll(
        async () => {
          const runs = await api<{ data: RunView[] }>('GET', `/v1/runs?job_id=${job.id}`);
          return runs.data.map((run) => `${run.status} ${run.attempt}`);
        },
        { timeout: 30_000 },
      )
      .toEqual(['success 2']);
    await page.close();
  });

  it('drew everything without a CSP violation', () => {
    expect(service.driver.cspViolations).toEqual([]);
  });
});
