// The Webhooks page and a job's deliveries in a real Chromium against a real `saas-api`: create an
// endpoint (its secret shown once, and it verifies what the receiver gets), see a delivery that
// failed once and was retried, redeliver it, rotate the secret; axe scans and screenshots.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/process-wait.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { seriousOrWorse } from './page-checks.js';
import { startDashboardService, type DashboardService } from './service.js';

let service: DashboardService;
let receiver: Receiver;
let tenantKey: string;
let job: { id: string; name: string };

beforeAll(async () => {
  service = await startDashboardService('webhooks', {
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '1s,1s',
  });
  receiver = await startReceiver((_message, count) => ({ status: count === 1 ? 500 : 204 }));
  tenantKey = await service.driver.tenantWithKey('Hooked Ltd');
  job = await service.driver.api<{ id: string; name: string }>(
    'POST',
    '/v1/cron-jobs',
    { name: 'Morning summary', schedule: '0 8 * * *', prompt: 'Summarise' },
    tenantKey,
  );
}, 180_000);

afterAll(async () => {
  await receiver?.close();
  await service?.stop();
});

describe('webhooks in the dashboard, in Chromium', () => {
  const scanBoth = (page: Page, name: string) => service.driver.scanBoth(page, name);

  it('creates an endpoint, shows its secret once and lists its deliveries', async () => {
    const page = await service.driver.newPage();
    await service.driver.signIn(page, tenantKey);
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    await page.getByText('No endpoints yet.').waitFor();
    await scanBoth(page, 'webhooks-empty');
    await page.getByLabel('URL').fill('http://');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('alert').waitFor();
    await page.getByLabel('URL').fill(`${receiver.url}/hook`);
    await page.getByLabel('Runs of').selectOption({ label: 'Morning summary' });
    await page.getByRole('button', { name: 'Create' }).click();
    const secret = (await page.getByTestId('new-secret').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    receiver.secrets = [secret];
    await page.getByRole('button', { name: 'Done' }).click();
    await page
      .locator('article')
      .getByText(/Morning summary/)
      .waitFor();
    await scanBoth(page, 'webhooks');
    await service.driver.shoot(page, 'webhooks', true);

    await service.driver.api('POST', `/v1/cron-jobs/${job.id}/trigger`, {}, tenantKey);
    await waitFor(() => expect(receiver.received.length).toBe(2), { timeoutMs: 30_000 });
    expect(receiver.received.map((message) => message.verifiedBy)).toEqual([[0], [0]]);

    // The job's page shows the delivery, delivered on its second attempt.
    await page.goto(`${service.pod.url}/jobs/${job.id}`);
    await page.getByRole('heading', { name: 'Webhook deliveries' }).waitFor();
    const deliveries = page.getByRole('table', { name: 'Webhook deliveries, newest first' });
    await deliveries.getByText('delivered', { exact: true }).waitFor();
    await deliveries.getByText('run.succeeded', { exact: true }).waitFor();
    await scanBoth(page, 'job-deliveries');
    await page.getByRole('button', { name: 'Redeliver' }).click();
    await page.getByText(/queued again/).waitFor();
    await waitFor(() => expect(receiver.received.length).toBe(3), { timeoutMs: 30_000 });
    expect(new Set(receiver.received.map((message) => message.id)).size).toBe(1);

    // Rotation: a new secret, and the endpoint says the previous one still signs.
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate secret' }).click();
    const rotated = (await page.getByTestId('new-secret').textContent()) ?? '';
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await page.getByText(/previous secret signs until/).waitFor();
    await page.getByRole('button', { name: 'Deliveries' }).click();
    await page.getByRole('table', { name: 'Webhook deliveries, newest first' }).waitFor();
    await scanBoth(page, 'webhooks-deliveries');
    await page.close();
  });

  it('has no serious or critical axe violations and no CSP violations', () => {
    expect(service.driver.axe.length).toBeGreaterThanOrEqual(8);
    expect(seriousOrWorse(service.driver.axe)).toEqual([]);
    expect(service.driver.cspViolations).toEqual([]);
  });
});
