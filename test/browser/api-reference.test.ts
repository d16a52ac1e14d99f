// The interactive API reference at /docs in a real Chromium: Swagger UI renders every operation
// of /openapi.json from files this service serves (no CDN), under its CSP, and "Try it out"
// sends a real request with the bearer token given to "Authorize".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startDashboardService, type DashboardService } from './service.js';

let service: DashboardService;

beforeAll(async () => {
  service = await startDashboardService('api-reference');
}, 180_000);

afterAll(async () => {
  await service?.stop();
});

describe('/docs, in Chromium', () => {
  it('renders every operation of /openapi.json and calls the API with the token given', async () => {
    const spec = await service.driver.api<{ paths: Record<string, Record<string, unknown>> }>(
      'GET',
      '/openapi.json',
    );
    const operations = Object.values(spec.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
    const page = await service.driver.newPage();
    const outside: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(service.pod.url)) outside.push(request.url());
    });
    await page.goto(`${service.pod.url}/docs`);
    await page.locator('#reference .opblock').first().waitFor();
    await expect.poll(() => page.locator('#reference .opblock').count()).toBe(operations);

    await page.getByRole('button', { name: 'Authorize' }).first().click();
    await page
      .locator('.modal-ux input[type=text], .modal-ux input[type=password]')
      .first()
      .fill(ADMIN_TOKEN);
    await page.locator('.modal-ux').getByRole('button', { name: 'Apply credentials' }).click();
    await page.locator('.modal-ux').getByRole('button', { name: 'Close' }).click();
    const tenants = page.locator('.opblock-get', {
      has: page.locator('.opblock-summary-path[data-path="/v1/tenants"]'),
    });
    await tenants.locator('.opblock-summary').first().click();
    await tenants.getByRole('button', { name: 'Try it out' }).click();
    const answered = page.waitForResponse(
      (r) => r.url().includes('/v1/tenants') && r.request().method() === 'GET',
    );
    await tenants.getByRole('button', { name: 'Execute' }).click();
    expect((await answered).status()).toBe(200);

    expect(outside).toEqual([]);
    expect(service.driver.cspViolations).toEqual([]);
  });
});
