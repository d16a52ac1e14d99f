// The run controls in the dashboard, in a real Chromium against a real `saas-api`: every control
// on the job form (and the preview honouring its limits), the job page's labels, limits and
// pause reason, the label filter of the job list, the Runs page and its filters, and the
// operator's max concurrent runs.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startDashboardService, type DashboardService } from './service.js';

interface JobView {
  id: string;
  name: string;
  labels: Record<string, string>;
  timeout: string | null;
  max_runs: number | null;
  jitter: string | null;
  overlap: string;
  pause_after_failures: number | null;
  ends_at: string | null;
  enabled: boolean;
  paused_reason: string | null;
  paused_by: string | null;
}

let service: DashboardService;
let tenantKey: string;

beforeAll(async () => {
  service = await startDashboardService('controls');
  tenantKey = await service.driver.tenantWithKey('Controls Inc');
}, 180_000);

afterAll(async () => {
  await service?.stop();
});

describe('the run controls in the dashboard', () => {
  const newPage = () => service.driver.newPage();
  const signIn = (page: Page, token: string) => service.driver.signIn(page, token);
  const api = <T>(method: string, path: string, body?: unknown, token = tenantKey) =>
    service.driver.api<T>(method, path, body, token);

  it('sets every control on the job form, shows them on the job page, pauses with a reason', async () => {
    const page = await newPage();
    await signIn(page, tenantKey);
    await page.getByRole('link', { name: 'New job' }).first().click();
    await page.getByLabel('Name').fill('Ops hourly');
    await page.getByLabel('Schedule').fill('0 * * * *');
    await page.getByLabel('Time zone').fill('UTC');
    await page.getByLabel('Prompt').fill('Report');
    await page.getByLabel('Labels').fill('team=ops\nenv=prod');
    await page.getByLabel('Timeout').fill('45s');
    await page.getByLabel('Pause after failures').fill('2');
    await page.getByLabel('Max runs').fill('3');
    await page.getByLabel('Jitter').fill('2m');
    await page.getByRole('note').filter({ hasText: 'starts up to 2m after' }).waitFor();
    await expect(page.getByLabel('Overlap').inputValue()).resolves.toBe('skip');
    await page.getByLabel('Overlap').selectOption('buffer_one');
    await page.getByRole('note').filter({ hasText: 'waits and runs right after it' }).waitFor();
    // The preview keeps to the limits: three runs at most, and says so.
    await page.locator('.fire-times li').first().waitFor();
    await expect(page.locator('.fire-times li').count()).resolves.toBe(3);
    await page.getByRole('note').filter({ hasText: 'Stops itself after 3 runs' }).waitFor();
    const endsAt = new Date(Date.now() + 3 * 86_400_000);
    // datetime-local is the browser's wall time: computed in the page, whose zone may differ.
    const local = await page.evaluate((ms) => {
      const date = new Date(ms);
      return new Date(ms - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    }, endsAt.getTime());
    await page.getByLabel('Ends at').fill(local);
    await page.getByRole('note').filter({ hasText: 'No run after' }).waitFor();
    await page.getByRole('button', { name: 'Create' }).click();

    await page.getByRole('heading', { name: 'Ops hourly' }).waitFor();
    await page.getByText('team=ops').first().waitFor();
    await page.getByText(/timeout 45s · at most 3 runs · pauses after 2 failures/).waitFor();
    await page.getByText(/overlap buffer_one/).waitFor();
    const jobs = await api<{ data: JobView[] }>('GET', '/v1/cron-jobs?label=team=ops');
    const job = jobs.data.find((j) => j.name === 'Ops hourly')!;
    expect(job).toMatchObject({
      labels: { env: 'prod', team: 'ops' },
      timeout: '45s',
      max_runs: 3,
      pause_after_failures: 2,
      jitter: '2m0s',
      overlap: 'buffer_one',
    });
    expect(Math.abs(new Date(job.ends_at!).getTime() - endsAt.getTime())).toBeLessThan(60_000);

    await page.getByLabel('Pause reason').fill('vendor outage');
    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    await page.getByRole('button', { name: 'Resume' }).waitFor();
    await page.getByText('vendor outage').waitFor();
    const paused = await api<JobView>('GET', `/v1/cron-jobs/${job.id}`);
    expect(paused).toMatchObject({
      enabled: false,
      paused_reason: 'vendor outage',
      paused_by: 'user',
    });
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByRole('button', { name: 'Pause', exact: true }).waitFor();

    // Edit: the controls come filled in; clearing one sends null.
    await page.getByRole('link', { name: 'Edit' }).click();
    await expect(page.getByLabel('Timeout').inputValue()).resolves.toBe('45s');
    await expect(page.getByLabel('Overlap').inputValue()).resolves.toBe('buffer_one');
    await page.getByLabel('Timeout').fill('');
    await page.getByLabel('Model', { exact: true }).fill('not-offered');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('#controls-error').filter({ hasText: 'not offered' }).waitFor();
    await page.getByLabel('Model', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Ops hourly' }).waitFor();
    expect((await api<JobView>('GET', `/v1/cron-jobs/${job.id}`)).timeout).toBeNull();
    // The policy is kept when not touched, and changed when chosen.
    expect((await api<JobView>('GET', `/v1/cron-jobs/${job.id}`)).overlap).toBe('buffer_one');
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByLabel('Overlap').selectOption('cancel_other');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(/overlap cancel_other/).waitFor();
    expect((await api<JobView>('GET', `/v1/cron-jobs/${job.id}`)).overlap).toBe('cancel_other');
    await page.close();
  });

  it('filters the job list by label, and the Runs page by status and label', async () => {
    const web = await api<{ id: string }>('POST', '/v1/cron-jobs', {
      name: 'Web check',
      schedule: '0 * * * *',
      prompt: 'Check',
      labels: { team: 'web' },
    });
    service.llm.setHandler((body) =>
      JSON.stringify(body).includes('Check') ? { status: 500 } : { content: 'fine' },
    );
    await api('POST', `/v1/cron-jobs/${web.id}/trigger`, {});
    const page = await newPage();
    await signIn(page, tenantKey);
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();
    await page.getByLabel('Filter by label').fill('team=web');
    await page.getByRole('link', { name: 'Web check' }).waitFor();
    await expect(page.getByRole('link', { name: 'Ops hourly' }).count()).resolves.toBe(0);

    await page.getByRole('link', { name: 'Runs', exact: true }).click();
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    const failedRow = page.locator('table.runs tbody tr[data-status="failed"]');
    await failedRow.first().waitFor({ timeout: 30_000 });
    await page.getByLabel('Status').selectOption('success');
    await page.getByText('No run matches.').waitFor();
    await page.getByLabel('Status').selectOption('failed');
    await failedRow.first().waitFor();
    await expect(failedRow.first().textContent()).resolves.toContain('model_error');
    await page.getByLabel('Label').fill('team=ops');
    await page.getByLabel('Label').press('Enter');
    await page.getByText('No run matches.').waitFor();

    // The job page charts its last 30 days: durations, and the failure counted.
    await page.goto(`${service.pod.url}/jobs/${web.id}`);
    await page.getByText('Failed runs per day (last 30 days: 1)').waitFor();
    await page.getByText('Mean run duration per day (last 30 days)').waitFor();
    await expect(page.locator('figure.chart canvas').count()).resolves.toBe(2);
    await page.close();
  });

  it('cancels a run in flight from the Runs page', async () => {
    const slow = await api<{ id: string }>('POST', '/v1/cron-jobs', {
      name: 'Slow one',
      schedule: '0 * * * *',
      prompt: 'Hang',
    });
    service.llm.setHandler((body) =>
      JSON.stringify(body).includes('Hang') ? { hang: true } : { content: 'fine' },
    );
    await api('POST', `/v1/cron-jobs/${slow.id}/trigger`, {});
    const page = await newPage();
    await signIn(page, tenantKey);
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();
    await page.getByRole('link', { name: 'Runs', exact: true }).click();
    const running = page.locator('table.runs tbody tr[data-status="running"]');
    await running.first().waitFor({ timeout: 30_000 });
    await running.first().getByRole('button', { name: 'Cancel' }).click();
    await page.getByText('Cancelling the run of Slow one').waitFor();
    await expect
      .poll(
        async () =>
          (
            await api<{ data: { error_kind: string | null }[] }>(
              'GET',
              `/v1/cron-jobs/${slow.id}/runs?status=failed`,
            )
          ).data[0]?.error_kind,
        { timeout: 5000 },
      )
      .toBe('cancelled');
    await page.close();
  });

  it('lets the operator edit a tenant’s max concurrent runs', async () => {
    const tenant = await service.driver.api<{ id: string }>('POST', '/v1/tenants', {
      name: 'Capped',
    });
    const page = await newPage();
    await signIn(page, ADMIN_TOKEN);
    await page.getByRole('heading', { name: 'Tenants' }).waitFor();
    await page.goto(`${service.pod.url}/tenants/${tenant.id}`);
    const quotas = page.locator('form', { has: page.getByLabel('Max concurrent runs') });
    await page.getByLabel('Max concurrent runs').fill('4');
    await quotas.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    const saved = await service.driver.api<{ max_concurrent_runs: number | null }>(
      'GET',
      `/v1/tenants/${tenant.id}`,
    );
    expect(saved.max_concurrent_runs).toBe(4);
    await page.getByLabel('Max concurrent runs').fill('');
    await quotas.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    await expect
      .poll(
        async () =>
          (
            await service.driver.api<{ max_concurrent_runs: number | null }>(
              'GET',
              `/v1/tenants/${tenant.id}`,
            )
          ).max_concurrent_runs,
      )
      .toBeNull();
    await page.close();
  });

  it('drew everything without a CSP violation', () => {
    expect(service.driver.cspViolations).toEqual([]);
  });
});
