// The dashboard's pages for what runs can do, in a real Chromium against a real `saas-api`:
// the skills editor, the write-only secrets page, the tenant's read-only settings and the
// operator's allow-list editor; axe scans of each.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSecretsKey } from '../../src/secrets/key.js';
import { seriousOrWorse } from './page-checks.js';
import { ADMIN_TOKEN, startDashboardService, type DashboardService } from './service.js';

const SECRET_VALUE = 'xoxb-browser-secret-value-42';

let service: DashboardService;
let tenantId: string;
let tenantKey: string;

beforeAll(async () => {
  service = await startDashboardService('agent', { HERMES_SECRETS_KEY: generateSecretsKey() });
  const { api } = service.driver;
  tenantId = (await api<{ id: string }>('POST', '/v1/tenants', { name: 'Skilled Tenant' })).id;
  tenantKey = (
    await api<{ key: string }>('POST', '/v1/api-keys', { tenant_id: tenantId, name: 'browser' })
  ).key;
}, 180_000);

afterAll(async () => {
  await service?.stop();
});

describe('dashboard pages for skills, secrets and the allow-list', () => {
  it('creates and edits a skill in the editor', async () => {
    const page = await service.driver.newPage();
    await service.driver.signIn(page, tenantKey);
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();
    await page.getByRole('link', { name: 'Skills' }).click();
    await page.getByRole('heading', { name: 'Skills' }).waitFor();
    await page.getByRole('link', { name: 'New skill' }).click();
    const editor = page.getByLabel('SKILL.md');
    await editor.fill(
      '---\nname: standup-notes\ndescription: How to write the standup notes.\n---\n# Notes\n',
    );
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'standup-notes' }).waitFor();
    await service.driver.scanBoth(page, 'skill-editor');
    await editor.fill('---\nname: standup-notes\n---\nno description');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('alert').filter({ hasText: 'description' }).waitFor();
    await page.getByRole('link', { name: '← Skills' }).click();
    await page.getByRole('link', { name: 'standup-notes' }).waitFor();
    expect(await page.getByText('How to write the standup notes.').count()).toBe(1);
    await service.driver.scanBoth(page, 'skills');
    await page.close();
  });

  it('stores a secret without ever showing its value', async () => {
    const page = await service.driver.newPage();
    await service.driver.signIn(page, tenantKey);
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();
    await page.getByRole('link', { name: 'Secrets' }).click();
    await page.getByLabel('Name').fill('SLACK_TOKEN');
    await page.getByLabel('Value').fill(SECRET_VALUE);
    expect(await page.getByLabel('Value').getAttribute('type')).toBe('password');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved SLACK_TOKEN' }).waitFor();
    await page.getByRole('cell', { name: 'SLACK_TOKEN' }).waitFor();
    expect(await page.content()).not.toContain(SECRET_VALUE);
    // Bound to hosts: Edit keeps the name and hosts; the value is typed again.
    await page.getByRole('button', { name: 'Edit' }).click();
    expect(await page.getByLabel('Name').inputValue()).toBe('SLACK_TOKEN');
    await page.getByLabel('Value').fill(SECRET_VALUE);
    await page.getByLabel('Allowed hosts').fill('hooks.slack.com, *.Example.com');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('cell', { name: '*.example.com, hooks.slack.com' }).waitFor();
    expect(await page.content()).not.toContain(SECRET_VALUE);
    await service.driver.scanBoth(page, 'secrets');
    await page.close();
  });

  it('the operator sets the allowed hosts; the tenant sees them', async () => {
    const admin = await service.driver.newPage();
    await service.driver.signIn(admin, ADMIN_TOKEN);
    // Signed in (the session is stored) before the next navigation.
    await admin.getByRole('heading', { name: 'Tenants' }).waitFor();
    await admin.goto(`${service.pod.url}/tenants/${tenantId}`);
    const hosts = admin.getByLabel('Allowed hosts');
    await hosts.fill('hooks.slack.com\n*.Example.com');
    await admin.getByRole('button', { name: 'Save hosts' }).click();
    await admin.getByText('Saved.').last().waitFor();
    expect(await hosts.inputValue()).toBe('*.example.com\nhooks.slack.com');
    await hosts.fill('*');
    await admin.getByRole('button', { name: 'Save hosts' }).click();
    await admin.getByRole('alert').filter({ hasText: 'not a host name' }).waitFor();
    await admin.close();

    const page = await service.driver.newPage();
    await service.driver.signIn(page, tenantKey);
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByText('hooks.slack.com').waitFor();
    expect(await page.getByText('*.example.com').count()).toBe(1);
    await service.driver.scanBoth(page, 'settings');
    await page.close();
  });

  it('keeps every page on a reload or a bookmark, and says when a page does not exist', async () => {
    const page = await service.driver.newPage();
    await service.driver.signIn(page, tenantKey);
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();
    const pages: [string, string][] = [
      ['/secrets', 'Secrets'],
      ['/skills', 'Skills'],
      ['/skills/new', 'New skill'],
      ['/skills/standup-notes', 'standup-notes'],
      ['/settings', 'Settings'],
    ];
    for (const [path, heading] of pages) {
      const response = await page.goto(`${service.pod.url}${path}`);
      expect([path, response?.status()]).toEqual([path, 200]);
      await page.getByRole('heading', { name: heading, exact: true }).waitFor();
      await page.reload();
      await page.getByRole('heading', { name: heading, exact: true }).waitFor();
      expect(new URL(page.url()).pathname).toBe(path);
    }
    const missing = await page.goto(`${service.pod.url}/no/such/page`);
    expect(missing?.status()).toBe(200);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/no/such/page');
    expect(await page.title()).toBe('Page not found · HermesX');
    await service.driver.scanBoth(page, 'not-found');
    await page.getByRole('link', { name: 'Go to the start page' }).click();
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();
    // The API's unknown paths stay JSON, even for a browser.
    const api = await page.goto(`${service.pod.url}/v1/no-such-route`);
    expect(api?.status()).toBe(404);
    expect(await api?.json()).toMatchObject({ error: { code: 'not_found' } });
    await page.close();
  });

  it('passes the accessibility scans', () => {
    expect(seriousOrWorse(service.driver.axe)).toEqual([]);
    expect(service.driver.cspViolations).toEqual([]);
  });
});
