// The tenant side of the dashboard in a real Chromium against a real `saas-api` (PostgreSQL,
// Redis, fake model): sign-in, the jobs list, paging, quota errors, the job form with its
// daylight-saving warning, run now, pause/resume, edit, delete; axe scans and screenshots.
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/process-wait.js';
import { seriousOrWorse } from './page-checks.js';
import { startDashboardService, type DashboardService } from './service.js';

const MIN_SCANS = 8;

let service: DashboardService;
let tenantKey: string;
let otherJob: { id: string; name: string };

beforeAll(async () => {
  service = await startDashboardService('tenant');
  const { driver, llm } = service;
  const { tenantWithKey, api: adminApi } = driver;
  tenantKey = await tenantWithKey('Acme Robotics');
  const otherKey = await tenantWithKey('Other Tenant');
  otherJob = await adminApi<{ id: string; name: string }>(
    'POST',
    '/v1/cron-jobs',
    { name: 'other tenant secret job', schedule: '0 * * * *', prompt: 'never show me' },
    otherKey,
  );
  // A history to look at: one run that succeeded, one the model refused.
  llm.setHandler((body) =>
    JSON.stringify(body).includes('Do: Weekly digest')
      ? { status: 400 }
      : { content: `Done at ${new Date().toISOString()}` },
  );
  const seeded: string[] = [];
  for (const [name, schedule, timezone] of [
    ['Morning briefing', '0 8 * * 1-5', 'Europe/Berlin'],
    ['Weekly digest', '0 17 * * 5', 'America/Los_Angeles'],
    ['Quarter-hour health check', '*/15 * * * *', 'UTC'],
  ] as const) {
    const job = await adminApi<{ id: string }>(
      'POST',
      '/v1/cron-jobs',
      { name, schedule, timezone, prompt: `Do: ${name}` },
      tenantKey,
    );
    if (name !== 'Quarter-hour health check') seeded.push(job.id);
  }
  for (const id of seeded) await adminApi('POST', `/v1/cron-jobs/${id}/trigger`, {}, tenantKey);
  await waitFor(
    async () => {
      for (const id of seeded) {
        const job = await adminApi<{ last_run_at: string | null }>(
          'GET',
          `/v1/cron-jobs/${id}`,
          undefined,
          tenantKey,
        );
        if (!job.last_run_at) throw new Error(`job ${id} has not run yet`);
      }
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );
}, 180_000);

afterAll(async () => {
  await service?.stop();
});

describe('dashboard for a tenant, in Chromium', () => {
  // Bound late: the service exists once beforeAll has run.
  const newPage = () => service.driver.newPage();
  const signIn = (page: Page, token: string) => service.driver.signIn(page, token);
  const scanBoth = (page: Page, name: string) => service.driver.scanBoth(page, name);
  const shoot = (page: Page, name: string, phone = false, mask: Locator[] = []) =>
    service.driver.shoot(page, name, phone, mask);
  const adminApi = <T>(method: string, path: string, body?: unknown, token?: string) =>
    service.driver.api<T>(method, path, body, token);

  it('serves the page with a strict CSP and keeps the key out of localStorage and URLs', async () => {
    const response = await fetch(`${service.pod.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    const page = await newPage();
    await page.goto(`${service.pod.url}/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await scanBoth(page, 'sign-in');
    await shoot(page, 'sign-in');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    await page.getByLabel('API key').fill('hk_not_a_real_key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'not valid' }).waitFor();
    // By keyboard alone: type the key, Enter; then Tab to "New job" and Enter.
    await page.getByLabel('API key').fill('');
    await page.getByLabel('API key').focus();
    await page.keyboard.type(tenantKey);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();
    let tabs = 0;
    while ((await page.evaluate('document.activeElement?.textContent?.trim()')) !== 'New job') {
      expect(tabs++, 'Tab never reached "New job"').toBeLessThan(15);
      await page.keyboard.press('Tab');
    }
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'New job' }).waitFor();
    // Evaluated in the page (a string: this file is compiled without the DOM library).
    const storage = await page.evaluate<{ local: string; session: string }>(
      '({ local: JSON.stringify(localStorage), session: JSON.stringify(sessionStorage) })',
    );
    expect(storage.local).not.toContain(tenantKey);
    expect(storage.session).toContain(tenantKey);
    expect(page.url()).not.toContain(tenantKey);
    await page.close();
  });

  it('lists the tenant its own jobs only, with the schedule in words', async () => {
    const page = await newPage();
    await signIn(page, tenantKey);
    await page.getByRole('link', { name: 'Morning briefing' }).waitFor();
    const table = page.getByRole('table');
    await expect(table.getByRole('columnheader', { name: 'Schedule' }).count()).resolves.toBe(1);
    await page.getByText('At 08:00, Monday through Friday').waitFor();
    expect(await page.getByText(otherJob.name).count()).toBe(0);
    await page
      .getByRole('row', { name: /Weekly digest/ })
      .getByText('failed')
      .waitFor();
    await page
      .getByRole('row', { name: /Morning briefing/ })
      .getByText('success')
      .waitFor();
    await page.getByLabel('Filter by name').fill('weekly');
    await page.getByRole('link', { name: 'Morning briefing' }).waitFor({ state: 'detached' });
    await page.getByRole('link', { name: 'Weekly digest' }).waitFor();
    await page.getByLabel('Filter by name').fill('');
    await scanBoth(page, 'jobs');
    await shoot(page, 'jobs', true);
    // Another tenant's job by its id: not found, nothing of it shown.
    await page.goto(`${service.pod.url}/jobs/${otherJob.id}`);
    await page.getByRole('heading', { name: 'Job not found' }).waitFor();
    expect(await page.getByText('never show me').count()).toBe(0);
    await page.close();
  });

  it('pages through a tenant with many jobs and filters across all of them', async () => {
    const bulk = await adminApi<{ id: string }>('POST', '/v1/tenants', {
      name: 'Bulk Co',
      max_cron_jobs: 500,
    });
    const { key } = await adminApi<{ key: string }>('POST', '/v1/api-keys', {
      tenant_id: bulk.id,
      name: 'bulk',
    });
    await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        adminApi(
          'POST',
          '/v1/cron-jobs',
          { name: `bulk job ${String(i).padStart(2, '0')}`, schedule: '0 3 * * *', prompt: 'p' },
          key,
        ),
      ),
    );
    const page = await newPage();
    await signIn(page, key);
    const pager = page.getByRole('navigation', { name: 'Job pages' });
    await pager.getByText('Page 1 · 60 jobs').waitFor();
    expect(await page.locator('table tbody tr').count()).toBe(25);
    await pager.getByRole('button', { name: 'Next' }).click();
    await pager.getByText('Page 2 · 60 jobs').waitFor();
    await pager.getByRole('button', { name: 'Next' }).click();
    await pager.getByText('Page 3 · 60 jobs').waitFor();
    expect(await page.locator('table tbody tr').count()).toBe(10);
    // The filter covers every page (the oldest job is on the last one).
    await page.getByLabel('Filter by name').fill('bulk job 00');
    await page.getByRole('link', { name: 'bulk job 00' }).waitFor();
    expect(await page.locator('table tbody tr').count()).toBe(1);
    await page.close();
  });

  it('explains quota errors next to what caused them', async () => {
    const small = await adminApi<{ id: string }>('POST', '/v1/tenants', {
      name: 'Small Co',
      max_cron_jobs: 1,
      min_schedule_interval_seconds: 3600,
    });
    const { key } = await adminApi<{ key: string }>('POST', '/v1/api-keys', {
      tenant_id: small.id,
      name: 'small',
    });
    const page = await newPage();
    await signIn(page, key);
    const fill = async (name: string, schedule: string) => {
      await page.getByLabel('Name').fill(name);
      await page.getByLabel('Schedule').fill(schedule);
      await page.getByLabel('Time zone').fill('UTC');
      await page.getByLabel('Prompt').fill('p');
    };
    // The schedule's preview answers only after the create was refused: a late preview must not
    // clear what the create said.
    let releasePreview = (): void => {};
    const createAnswered = new Promise<void>((resolve) => (releasePreview = resolve));
    page.on('response', (response) => {
      const request = response.request();
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/v1/cron-jobs') {
        releasePreview();
      }
    });
    await page.route('**/v1/cron-jobs/preview', async (route) => {
      await createAnswered;
      await route.continue();
    });
    await page.getByRole('link', { name: 'Create your first job' }).click();
    await fill('too often', '*/5 * * * *');
    await page.getByRole('button', { name: 'Create' }).click();
    const tooOften = page
      .locator('#schedule-error')
      .filter({ hasText: 'Too frequent for your plan' });
    await tooOften.waitFor();
    await page.locator('.fire-times li').first().waitFor();
    expect(await tooOften.isVisible()).toBe(true);
    await page.unroute('**/v1/cron-jobs/preview');
    await fill('hourly', '0 * * * *');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'hourly' }).waitFor();
    await page.goto(`${service.pod.url}/jobs/new`);
    await fill('one too many', '0 * * * *');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('alert').filter({ hasText: 'Job limit reached' }).waitFor();
    await page.close();
  });

  it('creates a job with a DST-affected schedule, runs it now, pauses and resumes it', async () => {
    const page = await newPage();
    await signIn(page, tenantKey);
    await page.getByRole('link', { name: 'New job' }).click();
    await page.getByLabel('Name').fill('Night report');
    await page.getByLabel('Schedule').fill('30 2 * * *');
    await page.getByLabel('Time zone').fill('America/New_York');
    await page.getByLabel('Prompt').fill('Summarise the night');
    const warning = page.getByRole('note').filter({ hasText: 'Daylight saving' });
    await warning.filter({ hasText: 'moves to 03:00' }).waitFor();
    expect(await warning.first().textContent()).toContain('02:30 does not exist');
    await expect(page.locator('.fire-times li').count()).resolves.toBe(5);
    // Fall-back: a fixed-time job in the repeated hour fires once, a wildcard job twice.
    await page.getByLabel('Schedule').fill('30 1 * * *');
    await warning.filter({ hasText: 'fires at 01:30 once that day' }).waitFor();
    await page.getByLabel('Schedule').fill('0 * * * *');
    await warning.filter({ hasText: 'fires at 01:00 twice that day' }).waitFor();
    await warning.filter({ hasText: 'are skipped that day' }).waitFor();
    await page.getByLabel('Schedule').fill('61 * * * *');
    await page.locator('#schedule-error[role=alert]').waitFor();
    await page.getByLabel('Schedule').fill('30 2 * * *');
    await warning.first().waitFor();
    await scanBoth(page, 'new-job');
    await shoot(page, 'new-job', true);
    await page.getByRole('button', { name: 'Create' }).click();

    await page.getByRole('heading', { name: 'Night report' }).waitFor();
    await page.getByText('No runs yet').waitFor();
    const callsBefore = service.llm.calls.length;
    await page.getByRole('button', { name: 'Run now' }).click();
    // The run shows up and succeeds without a reload.
    await page.locator('table.runs tbody tr[data-status="success"]').waitFor({ timeout: 30_000 });
    expect(service.llm.calls.length).toBeGreaterThan(callsBefore);
    await page.getByRole('table').getByText('browser-tenant').first().waitFor();
    await page.locator('table.runs details summary').first().click();
    await page.locator('table.runs details pre').first().waitFor();
    await scanBoth(page, 'job');
    await shoot(page, 'job', true);

    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('button', { name: 'Resume' }).waitFor();
    const paused = await adminApi<{ data: { name: string; enabled: boolean }[] }>(
      'GET',
      '/v1/cron-jobs?limit=100',
      undefined,
      tenantKey,
    );
    expect(paused.data.find((j) => j.name === 'Night report')?.enabled).toBe(false);
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByRole('button', { name: 'Pause' }).waitFor();

    // Edit: the form comes filled in; Save changes the job.
    await page.getByRole('link', { name: 'Edit' }).click();
    await expect(page.getByLabel('Time zone').inputValue()).resolves.toBe('America/New_York');
    await page.getByLabel('Name').fill('Night report (edited)');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Night report (edited)' }).waitFor();

    // Delete asks first; Cancel keeps the job.
    await page.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('heading', { name: 'Night report (edited)' }).waitFor();
    // Confirmed, it is gone.
    await page.getByRole('button', { name: 'Delete' }).click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();
    await page.getByRole('link', { name: 'Morning briefing' }).waitFor();
    expect(await page.getByRole('link', { name: 'Night report (edited)' }).count()).toBe(0);
    await page.close();
  });

  it('has no serious or critical axe violations and no CSP violations', () => {
    expect(service.driver.axe.length).toBeGreaterThanOrEqual(MIN_SCANS);
    expect(seriousOrWorse(service.driver.axe)).toEqual([]);
    expect(service.driver.cspViolations).toEqual([]);
  });
});
