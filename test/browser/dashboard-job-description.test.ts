// A job's description in the dashboard, in a real Chromium against a real `saas-api`: written in
// the job form's textarea, shown on the job page with its line breaks, edited and cleared.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboardService, type DashboardService } from './service.js';

let service: DashboardService;
let tenantKey: string;

beforeAll(async () => {
  service = await startDashboardService('description');
  tenantKey = await service.driver.tenantWithKey('Description Inc');
}, 180_000);

afterAll(async () => {
  await service?.stop();
});

describe('a job description in the dashboard', () => {
  const signIn = (page: Page, token: string) => service.driver.signIn(page, token);
  const api = <T>(method: string, path: string) =>
    service.driver.api<T>(method, path, undefined, tenantKey);

  it('is written in the job form, shown on the job page, edited and cleared', async () => {
    const page = await service.driver.newPage();
    await signIn(page, tenantKey);
    await page.getByRole('link', { name: 'New job' }).first().click();
    await page.getByLabel('Name').fill('Described');
    await page.getByLabel('Schedule').fill('0 * * * *');
    await page.getByLabel('Time zone').fill('UTC');
    await page.getByLabel('Prompt').fill('Report');
    await page.getByLabel('Description').fill('Posts the digest.\nOwner: ops');
    await page.getByRole('button', { name: 'Create' }).click();

    await page.getByRole('heading', { name: 'Described' }).waitFor();
    const shown = page.getByTestId('job-description');
    await expect(shown.innerText()).resolves.toBe('Posts the digest.\nOwner: ops');
    const jobs = await api<{ data: { name: string; description: string | null }[] }>(
      'GET',
      '/v1/cron-jobs?limit=100',
    );
    expect(jobs.data.find((job) => job.name === 'Described')?.description).toBe(
      'Posts the digest.\nOwner: ops',
    );

    await page.getByRole('link', { name: 'Edit' }).click();
    await expect(page.getByLabel('Description').inputValue()).resolves.toBe(
      'Posts the digest.\nOwner: ops',
    );
    await page.getByLabel('Description').fill('Owner: platform');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Owner: platform').waitFor();

    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByLabel('Description').fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Described' }).waitFor();
    await page.getByText('Runs so far').waitFor();
    await expect(shown.count()).resolves.toBe(0);
    await page.close();
  });
});
