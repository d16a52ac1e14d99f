// Keys with scopes and the audit log in the dashboard, in a real Chromium against a real
// `saas-api`: a tenant makes a read-only key with the scope checkboxes, the API refuses that key
// a write, and the tenant's audit page (and the operator's) shows who made it.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousOrWorse } from './page-checks.js';
import { ADMIN_TOKEN, startDashboardService, type DashboardService } from './service.js';

let service: DashboardService;
let tenantKey: string;

beforeAll(async () => {
  service = await startDashboardService('access');
  tenantKey = await service.driver.tenantWithKey('Initech');
}, 180_000);

afterAll(async () => {
  await service?.stop();
});

describe('keys with scopes and the audit log, in Chromium', () => {
  const newPage = () => service.driver.newPage();
  const signIn = (page: Page, token: string) => service.driver.signIn(page, token);

  it('a tenant creates a read-only key, which the API holds to its scope', async () => {
    const page = await newPage();
    await signIn(page, tenantKey);
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByLabel('Key name').fill('on-call reader');
    for (const box of await page.getByRole('checkbox').all()) {
      const scope = await box.getAttribute('value');
      if (scope !== 'jobs:read' && scope !== 'runs:read') await box.uncheck();
    }
    await page.getByRole('button', { name: 'Create' }).click();
    const shown = page.getByTestId('new-key');
    await shown.waitFor();
    const key = (await shown.textContent())?.trim() ?? '';
    expect(key).toMatch(/^hk_/);
    const row = page.getByRole('row', { name: /on-call reader/ });
    await expect
      .poll(() => row.getByTestId('key-scopes').textContent())
      .toBe('jobs:read, runs:read');
    await expect
      .poll(() => page.getByRole('row', { name: /browser test/ }).textContent())
      .toContain('every scope');
    await service.driver.scanBoth(page, 'tenant-keys');
    await service.driver.shoot(page, 'tenant-keys', false, [shown]);

    const refused = await fetch(`${service.pod.url}/v1/cron-jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x', schedule: '@hourly', prompt: 'x' }),
    });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({
      error: { code: 'insufficient_scope', message: 'this request needs the scope jobs:write' },
    });

    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    const created = page.getByTestId('audit-entry').filter({ hasText: 'key.create' });
    await expect.poll(() => created.count()).toBe(2);
    await expect.poll(() => created.first().textContent()).toContain('key “browser test”');
    await page.getByLabel('Action').fill('key.create');
    await page.getByRole('button', { name: 'Filter' }).click();
    await service.driver.scanBoth(page, 'tenant-audit');
    await service.driver.shoot(page, 'tenant-audit');
    await page.close();
  });

  it('the operator sees every tenant’s entries', async () => {
    const page = await newPage();
    await signIn(page, ADMIN_TOKEN);
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    const tenantCreated = page.getByTestId('audit-entry').filter({ hasText: 'tenant.create' });
    await expect.poll(() => tenantCreated.count()).toBe(1);
    expect(await tenantCreated.textContent()).toContain('operator');
    await service.driver.scanBoth(page, 'operator-audit');
    await page.close();
  });

  it('meets accessibility and CSP checks on every page scanned', () => {
    expect(service.driver.axe.length).toBeGreaterThanOrEqual(6);
    expect(seriousOrWorse(service.driver.axe)).toEqual([]);
    expect(service.driver.cspViolations).toEqual([]);
  });
});
