// The operator side of the dashboard in a real Chromium against a real `saas-api`: tenants, a
// key shown once, the cluster page; axe scans and screenshots.
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/process-wait.js';
import { seriousOrWorse } from './page-checks.js';
import { ADMIN_TOKEN, startDashboardService, type DashboardService } from './service.js';

const MIN_SCANS = 6;

let service: DashboardService;

beforeAll(async () => {
  service = await startDashboardService('operator');
  // Runs for the cluster page to count.
  const { tenantWithKey, api } = service.driver;
  const key = await tenantWithKey('Acme Robotics');
  const job = await api<{ id: string }>(
    'POST',
    '/v1/cron-jobs',
    { name: 'Nightly sync', schedule: '0 3 * * *', prompt: 'sync' },
    key,
  );
  await api('POST', `/v1/cron-jobs/${job.id}/trigger`, {}, key);
  await waitFor(
    async () => {
      const view = await api<{ last_run_at: string | null }>(
        'GET',
        `/v1/cron-jobs/${job.id}`,
        undefined,
        key,
      );
      if (!view.last_run_at) throw new Error('the job has not run yet');
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );
}, 180_000);

afterAll(async () => {
  await service?.stop();
});

describe('dashboard for an operator, in Chromium', () => {
  // Bound late: the service exists once beforeAll has run.
  const newPage = () => service.driver.newPage();
  const signIn = (page: Page, token: string) => service.driver.signIn(page, token);
  const scanBoth = (page: Page, name: string) => service.driver.scanBoth(page, name);
  const shoot = (page: Page, name: string, phone = false, mask: Locator[] = []) =>
    service.driver.shoot(page, name, phone, mask);
  const adminApi = <T>(method: string, path: string, body?: unknown, token?: string) =>
    service.driver.api<T>(method, path, body, token);

  it('lets an operator create a tenant and a key that is shown once', async () => {
    const page = await newPage();
    await signIn(page, ADMIN_TOKEN);
    await page.getByRole('heading', { name: 'Tenants' }).waitFor();
    await page.getByLabel('Tenant name').fill('Globex');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('link', { name: 'Globex' }).waitFor();
    await scanBoth(page, 'tenants');
    await shoot(page, 'tenants');

    await page.getByRole('link', { name: 'Create an API key for it' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByLabel('Key name').fill('ci deploys');
    await page.getByRole('button', { name: 'Create' }).click();
    const shown = page.getByTestId('new-key');
    await shown.waitFor();
    const key = (await shown.textContent())?.trim() ?? '';
    expect(key).toMatch(/^hk_/);
    await page.getByText('shown only once').waitFor();
    await scanBoth(page, 'keys');
    // A real key of a throwaway database, still: the pictures do not show it.
    await shoot(page, 'keys', false, [shown]);
    // The key works, and it is not shown again.
    const jobs = await adminApi<{ data: unknown[] }>('GET', '/v1/cron-jobs', undefined, key);
    expect(jobs.data).toEqual([]);
    await page.reload();
    await page.getByRole('cell', { name: 'ci deploys' }).waitFor();
    expect(await page.getByText(key).count()).toBe(0);

    await page.getByRole('link', { name: 'Cluster' }).click();
    await page.getByRole('cell', { name: 'browser-operator' }).waitFor();
    await page.getByText('scheduling', { exact: true }).first().waitFor();
    await scanBoth(page, 'cluster');
    await shoot(page, 'cluster', true);
    await page.close();
  });

  it('has no serious or critical axe violations and no CSP violations', () => {
    expect(service.driver.axe.length).toBeGreaterThanOrEqual(MIN_SCANS);
    expect(seriousOrWorse(service.driver.axe)).toEqual([]);
    expect(service.driver.cspViolations).toEqual([]);
  });
});
