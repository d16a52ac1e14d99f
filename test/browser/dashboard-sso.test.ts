// Sign-in with SSO in a real Chromium: a real OpenID Connect provider on loopback (oidc-provider)
// and a real `saas-api` pod. An owner and a viewer of one tenant sign in through the provider's
// pages; each sees exactly what its role allows (nav, members page, the write controls of the jobs,
// a job, webhooks and secrets pages) and the API refuses the viewer the same things from the page's
// own session; sign-out ends the session server-side.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../src/dev/processes.js';
import { generateSecretsKey } from '../../src/secrets/key.js';
import { startOidcProvider, type TestProvider } from '../helpers/oidc-provider.js';
import { seriousOrWorse } from './page-checks.js';
import { startDashboardService, type DashboardService } from './service.js';

const ACCOUNTS = {
  olivia: { email: 'olivia@acme.test', emailVerified: true, name: 'Olivia Owner' },
  victor: { email: 'victor@acme.test', emailVerified: true, name: 'Victor Viewer' },
};

let service: DashboardService;
let provider: TestProvider;
let baseUrl: string;
let jobId: string;

beforeAll(async () => {
  const port = await findFreePort();
  baseUrl = `http://127.0.0.1:${port}`;
  provider = await startOidcProvider(ACCOUNTS, `${baseUrl}/auth/callback`);
  service = await startDashboardService(
    'sso',
    {
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: provider.clientId,
      OIDC_CLIENT_SECRET: provider.clientSecret,
      PUBLIC_URL: baseUrl,
      HERMES_SECRETS_KEY: generateSecretsKey(),
    },
    port,
  );
  const { api } = service.driver;
  const tenant = await api<{ id: string }>('POST', '/v1/tenants', { name: 'Acme SSO' });
  await api('POST', `/v1/tenants/${tenant.id}/invitations`, {
    email: ACCOUNTS.olivia.email,
    role: 'owner',
  });
  await api('POST', `/v1/tenants/${tenant.id}/invitations`, {
    email: ACCOUNTS.victor.email,
    role: 'viewer',
  });
  const key = await api<{ key: string }>('POST', '/v1/api-keys', {
    tenant_id: tenant.id,
    name: 'seed',
  });
  const job = await api<{ id: string }>(
    'POST',
    '/v1/cron-jobs',
    { name: 'Nightly report', schedule: '0 2 * * *', prompt: 'Report.' },
    key.key,
  );
  jobId = job.id;
  await api('POST', '/v1/webhooks', { url: 'https://hooks.example.com/acme' }, key.key);
  await api('PUT', '/v1/secrets/SEED_TOKEN', { value: 'seed-token-value' }, key.key);
}, 180_000);

/** How many of these buttons and links the page shows (0: all hidden). */
async function countControls(page: Page, buttons: string[], links: string[] = []) {
  let count = 0;
  for (const name of buttons) {
    count += await page.getByRole('button', { name, exact: true }).count();
  }
  for (const name of links) count += await page.getByRole('link', { name, exact: true }).count();
  return count;
}

const JOB_BUTTONS = ['Run now', 'Pause', 'Resume', 'Delete'];
const WEBHOOK_BUTTONS = ['Create', 'Pause', 'Enable', 'Rotate secret', 'Delete'];
const SECRET_BUTTONS = ['Save', 'Edit', 'Delete'];

afterAll(async () => {
  await service?.stop();
  await provider?.close();
});

/** Through the dashboard's button and the provider's own login and consent pages. */
async function signInWithSso(page: Page, login: string): Promise<void> {
  await page.context().clearCookies();
  await page.goto(`${baseUrl}/`);
  await page.getByRole('link', { name: 'Sign in with SSO' }).click();
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** A request from the page itself: its cookie, and the CSRF token the dashboard holds. */
async function fromPage(page: Page, method: string, path: string, body?: unknown) {
  return page.evaluate(
    async ([m, p, b]) => {
      const me = (await (await fetch('/auth/me')).json()) as { csrf_token: string };
      const response = await fetch(p as string, {
        method: m as string,
        headers: { 'content-type': 'application/json', 'x-csrf-token': me.csrf_token },
        body: b === undefined ? null : JSON.stringify(b),
      });
      const json = (await response.json().catch(() => null)) as { error?: { code: string } };
      return { status: response.status, code: json?.error?.code };
    },
    [method, path, body] as const,
  );
}

async function navLinks(page: Page): Promise<string[]> {
  return page.getByRole('navigation', { name: 'Main' }).getByRole('link').allInnerTexts();
}

describe('dashboard sign-in with SSO', () => {
  it('offers SSO and the key form side by side', async () => {
    const page = await service.driver.newPage();
    await page.goto(`${baseUrl}/sign-in`);
    await page.getByRole('link', { name: 'Sign in with SSO' }).waitFor();
    await expect(page.getByLabel('API key').isVisible()).resolves.toBe(true);
    await service.driver.shoot(page, 'sso-sign-in');
    await page.close();
  });

  it('an owner sees and may do everything, members included', async () => {
    const page = await service.driver.newPage();
    await signInWithSso(page, 'olivia');
    expect(await navLinks(page)).toEqual([
      'Jobs',
      'Runs',
      'Webhooks',
      'Channels',
      'MCP',
      'Usage',
      'Skills',
      'Secrets',
      'Settings',
      'Members',
      'API keys',
      'Audit log',
    ]);
    await page.getByText('olivia@acme.test · owner').waitFor();
    await page.getByRole('link', { name: 'New job' }).waitFor();
    await page.getByRole('link', { name: 'Members' }).click();
    await page.getByRole('cell', { name: 'olivia@acme.test' }).waitFor();
    await page.getByRole('cell', { name: 'victor@acme.test' }).waitFor();
    await page.getByLabel('Email', { exact: true }).fill('new.hire@acme.test');
    await page.getByLabel('Role', { exact: true }).selectOption('member');
    await page.getByRole('button', { name: 'Invite' }).click();
    await page.getByText('Invited new.hire@acme.test as member.').waitFor();
    await expect(
      page.getByLabel('Role', { exact: true }).locator('option').allInnerTexts(),
    ).resolves.toEqual(['viewer', 'member', 'admin', 'owner']);
    expect(await fromPage(page, 'GET', '/v1/members')).toEqual({ status: 200 });
    await service.driver.scanBoth(page, 'sso-members');
    await service.driver.shoot(page, 'sso-members');
    await page.screenshot({ path: 'test-results/sso-members-owner.png' });
    // The same pages that a viewer sees read-only offer an owner every control.
    await page.goto(`${baseUrl}/jobs/${jobId}`);
    await page.getByRole('button', { name: 'Run now' }).waitFor();
    expect(await countControls(page, ['Run now', 'Pause', 'Delete'], ['Edit'])).toBe(4);
    await page.locator('summary', { hasText: 'Backfill' }).waitFor();
    await page.goto(`${baseUrl}/webhooks`);
    await page.getByRole('button', { name: 'Rotate secret' }).waitFor();
    await page.goto(`${baseUrl}/secrets`);
    await page.getByRole('button', { name: 'Edit', exact: true }).waitFor();
    await page.close();
  });

  it('a viewer sees no members page and no New job, and the API refuses it the same', async () => {
    const page = await service.driver.newPage();
    await signInWithSso(page, 'victor');
    expect(await navLinks(page)).toEqual([
      'Jobs',
      'Runs',
      'Webhooks',
      'Channels',
      'MCP',
      'Usage',
      'Skills',
      'Secrets',
      'Settings',
    ]);
    await page.getByText('victor@acme.test · viewer').waitFor();
    await page.getByRole('cell', { name: 'Nightly report' }).first().waitFor();
    expect(await page.getByRole('link', { name: 'New job' }).count()).toBe(0);
    await page.screenshot({ path: 'test-results/sso-jobs-viewer.png' });
    // The page refuses the path (back to the jobs), and the API refuses the request.
    await page.goto(`${baseUrl}/members`);
    await page.waitForURL(`${baseUrl}/jobs`);
    expect(await fromPage(page, 'GET', '/v1/members')).toEqual({
      status: 403,
      code: 'insufficient_scope',
    });
    expect(
      await fromPage(page, 'POST', '/v1/invitations', { email: 'x@acme.test', role: 'viewer' }),
    ).toEqual({ status: 403, code: 'insufficient_scope' });
    // Reading is what a viewer does.
    expect((await fromPage(page, 'GET', '/v1/cron-jobs')).status).toBe(200);
    await page.close();
  });

  it('a viewer sees no write control on a job, webhooks or secrets; the API refuses a job', async () => {
    const page = await service.driver.newPage();
    await signInWithSso(page, 'victor');
    await page.getByRole('cell', { name: 'Nightly report' }).first().waitFor();
    expect(await countControls(page, [], ['New job', 'Create your first job'])).toBe(0);

    await page.getByRole('link', { name: 'Nightly report' }).click();
    await page.getByRole('heading', { name: 'Next ten runs' }).waitFor();
    await page.getByTestId('read-only-note').getByText('lacks the jobs:write scope').waitFor();
    expect(await countControls(page, JOB_BUTTONS, ['Edit'])).toBe(0);
    expect(await page.getByLabel('Pause reason').count()).toBe(0);
    expect(await page.locator('summary', { hasText: 'Backfill' }).count()).toBe(0);
    await service.driver.scanBoth(page, 'sso-job-viewer');
    await page.screenshot({ path: 'test-results/sso-job-viewer.png', fullPage: true });

    // Typed by hand, the edit form says why it cannot save.
    await page.goto(`${baseUrl}/jobs/${jobId}/edit`);
    const save = page.getByRole('button', { name: 'Save' });
    await save.waitFor();
    expect(await save.isDisabled()).toBe(true);
    expect(await save.getAttribute('title')).toBe('Your role (viewer) lacks the jobs:write scope.');

    await page.goto(`${baseUrl}/webhooks`);
    await page.getByText('https://hooks.example.com/acme').waitFor();
    await page.getByRole('button', { name: 'Deliveries' }).waitFor();
    expect(await countControls(page, WEBHOOK_BUTTONS)).toBe(0);
    expect(await page.getByLabel('URL').count()).toBe(0);

    await page.goto(`${baseUrl}/secrets`);
    await page.getByRole('cell', { name: 'SEED_TOKEN' }).waitFor();
    expect(await countControls(page, SECRET_BUTTONS)).toBe(0);
    expect(await page.getByLabel('Value').count()).toBe(0);

    // Hidden is not the protection: the API refuses the viewer's own session a new job.
    expect(
      await fromPage(page, 'POST', '/v1/cron-jobs', {
        name: 'Sneaky',
        schedule: '0 3 * * *',
        prompt: 'Nope.',
      }),
    ).toEqual({ status: 403, code: 'insufficient_scope' });
    await page.close();
  });

  it('signs out on the server: the cookie it had no longer opens anything', async () => {
    const page = await service.driver.newPage();
    await signInWithSso(page, 'olivia');
    const cookies = await page.context().cookies(baseUrl);
    const session = cookies.find((cookie) => cookie.name === 'hermesx_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    // The sign-out request is held until the page has been looked at: it may say "signed out"
    // only once the server has said so.
    let reached = (): void => {};
    const logoutReached = new Promise<void>((resolve) => (reached = resolve));
    let release = (): void => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/auth/logout', async (route) => {
      reached();
      await released;
      await route.continue();
    });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await logoutReached;
    // The click's task, which sent the request, is over: the page has not left for the sign-in.
    expect(await page.evaluate<string>('location.pathname')).not.toBe('/sign-in');
    release();
    await page.getByRole('link', { name: 'Sign in with SSO' }).waitFor();
    const replay = await fetch(`${baseUrl}/auth/me`, {
      headers: { cookie: `hermesx_session=${session?.value ?? ''}` },
    });
    expect(replay.status).toBe(401);
    await page.close();
  });

  it('keeps the strict CSP and passes axe', () => {
    expect(service.driver.cspViolations).toEqual([]);
    expect(seriousOrWorse(service.driver.axe)).toEqual([]);
  });
});
