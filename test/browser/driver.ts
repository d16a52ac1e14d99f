// What the dashboard's browser tests do again and again: call the API, open a page that records
// CSP violations, sign in, scan with axe in both colour schemes, take the screenshots.
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { scanPage, screenshot, VIEWPORTS, type AxeFigure } from './page-checks.js';

export interface DriverOptions {
  baseUrl: string;
  adminToken: string;
  context: BrowserContext;
  waitMs: number;
}

export function createDriver(options: DriverOptions) {
  const axe: AxeFigure[] = [];
  const cspViolations: string[] = [];

  /** One API request (the admin token unless another is given); fails the test unless 2xx. */
  async function api<T>(method: string, path: string, body?: unknown, token = options.adminToken) {
    const response = await fetch(`${options.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
    expect(response.status, `${method} ${path}`).toBeLessThan(300);
    return (await response.json()) as T;
  }

  async function tenantWithKey(name: string): Promise<string> {
    const tenant = await api<{ id: string }>('POST', '/v1/tenants', { name });
    const key = await api<{ key: string }>('POST', '/v1/api-keys', {
      tenant_id: tenant.id,
      name: 'browser test',
    });
    return key.key;
  }

  async function newPage(): Promise<Page> {
    const page = await options.context.newPage();
    page.setDefaultTimeout(options.waitMs);
    page.on('console', (message) => {
      if (/Content.Security.Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    return page;
  }

  async function signIn(page: Page, token: string): Promise<void> {
    await page.goto(`${options.baseUrl}/`);
    await page.getByLabel('API key').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Signed in once the session is kept: a navigation before that lands on the sign-in form.
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  }

  async function scanBoth(page: Page, name: string): Promise<void> {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      axe.push(await scanPage(page, name, scheme));
    }
    await page.emulateMedia({ colorScheme: 'light' });
  }

  async function shoot(page: Page, name: string, phone = false, mask: Locator[] = []) {
    // No focus ring or hover in the pictures.
    await page.evaluate('document.activeElement && document.activeElement.blur()');
    await page.mouse.move(0, 0);
    for (const scheme of ['light', 'dark'] as const) {
      await screenshot(page, name, 'laptop', scheme, mask);
      if (phone) await screenshot(page, name, 'phone', scheme, mask);
    }
    await page.setViewportSize(VIEWPORTS.laptop);
    await page.emulateMedia({ colorScheme: 'light' });
  }

  return { axe, cspViolations, api, tenantWithKey, newPage, signIn, scanBoth, shoot };
}

export type Driver = ReturnType<typeof createDriver>;
