// Notification channels in the dashboard, in a real Chromium against a real `saas-api`: a Slack
// channel added and tested (the platform's answer shown), a job given a notify rule on its form,
// and the run's message on the run page; axe scan and screenshots.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatformStandIn, type PlatformStandIn } from '../helpers/channel-peers.js';
import { waitFor } from '../helpers/process-wait.js';
import { scanPage, screenshot, seriousOrWorse } from './page-checks.js';
import { startDashboardService, type DashboardService } from './service.js';

let service: DashboardService;
let tenantKey: string;
let slack: PlatformStandIn;

beforeAll(async () => {
  slack = await startPlatformStandIn('slack');
  service = await startDashboardService('channels', {
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    PUBLIC_URL: 'https://hermesx.example.com',
  });
  tenantKey = await service.driver.tenantWithKey('Channels Inc');
}, 180_000);

afterAll(async () => {
  await service?.stop();
  await slack?.close();
});

describe('channels in the dashboard', () => {
  const signIn = (page: Page, token: string) => service.driver.signIn(page, token);
  const api = <T>(method: string, path: string, body?: unknown) =>
    service.driver.api<T>(method, path, body, tenantKey);

  it('adds and tests a channel, sets a job’s rule, and shows the run’s message', async () => {
    const page = await service.driver.newPage();
    await signIn(page, tenantKey);
    await page.getByRole('link', { name: 'Channels' }).click();
    await page.getByRole('heading', { name: 'Channels', level: 1 }).waitFor();
    await page.getByLabel('Name').fill('ops');
    await page.getByLabel('Webhook URL').fill(`${slack.url}/services/T1/B1/abcdef`);
    await page.getByRole('button', { name: 'Add' }).click();
    await page.getByRole('heading', { name: 'Slack · ops' }).waitFor();
    await page.getByRole('button', { name: 'Send a test' }).click();
    await page.getByText('Test delivered (200): ok').waitFor();
    expect(slack.messages.map((m) => m.body.text)).toEqual(['ops: test message']);

    const figures = [await scanPage(page, 'channels', 'light')];
    expect(seriousOrWorse(figures)).toEqual([]);
    await screenshot(page, 'channels', 'laptop', 'light');

    await page.getByRole('link', { name: 'Jobs' }).click();
    await page.getByRole('link', { name: 'New job' }).first().click();
    await page.getByLabel('Name').fill('Watch');
    await page.getByLabel('Schedule').fill('0 * * * *');
    await page.getByLabel('Time zone').fill('UTC');
    await page.getByLabel('Prompt').fill('Check the status page');
    await page.getByLabel("Follow the tenant's default rules").uncheck();
    await page.getByRole('button', { name: 'Add a rule' }).click();
    await page.getByLabel('Rule 1: when').selectOption('always');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'Watch' }).waitFor();

    const jobs = await api<{ data: { id: string; name: string; notify: unknown }[] }>(
      'GET',
      '/v1/cron-jobs?limit=100',
    );
    const job = jobs.data.find((j) => j.name === 'Watch')!;
    const channels = await api<{ data: { id: string }[] }>('GET', '/v1/channels');
    expect(job.notify).toEqual([{ channel: channels.data[0]!.id, when: 'always', template: null }]);

    await api('POST', `/v1/cron-jobs/${job.id}/trigger`, {});
    const runId = await waitFor(
      async () => {
        const runs = await api<{ data: { id: string; status: string }[] }>(
          'GET',
          `/v1/cron-jobs/${job.id}/runs`,
        );
        const run = runs.data.find((r) => r.status === 'success' || r.status === 'failed');
        if (!run) throw new Error('no finished run yet');
        expect(slack.messages.length).toBe(2);
        return run.id;
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    expect(slack.problems).toEqual([]);
    await page.goto(`${service.pod.url}/jobs/${job.id}/runs/${runId}`);
    await page.getByRole('heading', { name: 'Messages' }).waitFor();
    await page.getByRole('cell', { name: 'always' }).waitFor();
    await page.getByRole('button', { name: 'Redeliver' }).waitFor();
    await screenshot(page, 'run-messages', 'laptop', 'light');
    await page.close();
  });
});
