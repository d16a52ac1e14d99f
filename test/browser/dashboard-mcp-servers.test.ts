// The MCP servers page and the job form's server choice in a real Chromium against a real
// `saas-api` and a real MCP server on loopback: add a server (its first test lists the tools),
// see a failing one named, choose the server on a job, remove it; axe scans and screenshots.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcpServer, type TestMcpServer } from '../helpers/mcp-server.js';
import { startDashboardService, type DashboardService } from './service.js';

let service: DashboardService;
let mcp: TestMcpServer;
let tenantKey: string;

beforeAll(async () => {
  service = await startDashboardService('mcp-servers', {
    HTTP_TOOL_ALLOW_PRIVATE_NETWORKS: 'true',
  });
  mcp = await startMcpServer();
  const { api } = service.driver;
  const tenant = await api<{ id: string }>('POST', '/v1/tenants', { name: 'Tooled Ltd' });
  tenantKey = (
    await api<{ key: string }>('POST', '/v1/api-keys', { tenant_id: tenant.id, name: 'browser' })
  ).key;
  await api('PUT', `/v1/tenants/${tenant.id}/agent-settings`, {
    http_allowed_hosts: ['http://127.0.0.1'],
  });
}, 180_000);

afterAll(async () => {
  await mcp?.close();
  await service?.stop();
});

describe('MCP servers in the dashboard, in Chromium', () => {
  it('adds a server and shows its tools, names a failure, offers it on the job form, removes it', async () => {
    const page = await service.driver.newPage();
    await service.driver.signIn(page, tenantKey);
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();
    await page.getByRole('link', { name: 'MCP' }).click();
    await page.getByRole('heading', { name: 'MCP servers' }).waitFor();
    await page.getByText('No MCP servers yet.').waitFor();
    await service.driver.scanBoth(page, 'mcp-servers-empty');

    await page.getByLabel('Name').fill('crm');
    await page.getByLabel('URL').fill(mcp.url);
    await page.getByLabel('Description').fill('Our CRM');
    await page.getByRole('button', { name: 'Add and test' }).click();
    const card = page.getByTestId('mcp-crm');
    await card.getByText('crm__effect').waitFor();
    await card.getByText('crm__lookup').waitFor();
    await card.getByText(/8 tools, listed in/).waitFor();

    await page.getByLabel('Name').fill('down');
    await page.getByLabel('URL').fill('http://127.0.0.1:9/mcp');
    await page.getByRole('button', { name: 'Add and test' }).click();
    await page
      .getByTestId('mcp-down')
      .getByText(/Failed \(refused\)/)
      .waitFor();
    await service.driver.scanBoth(page, 'mcp-servers');
    await service.driver.shoot(page, 'mcp-servers');

    // The job form offers the tenant's servers; the job keeps the one ticked.
    await page.goto(`${service.pod.url}/jobs/new`);
    await page.getByLabel('Name').fill('CRM digest');
    await page.getByLabel('Schedule').fill('0 8 * * *');
    await page.getByLabel('Prompt').fill('Summarise the CRM');
    await page.getByRole('checkbox', { name: 'crm' }).check();
    await service.driver.shoot(page, 'job-form-mcp');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'CRM digest' }).waitFor();
    const jobs = await service.driver.api<{ data: { name: string; mcp_servers: string[] }[] }>(
      'GET',
      '/v1/cron-jobs',
      undefined,
      tenantKey,
    );
    expect(jobs.data.find((job) => job.name === 'CRM digest')?.mcp_servers).toEqual(['crm']);

    await page.goto(`${service.pod.url}/mcp-servers`);
    const down = page.getByTestId('mcp-down');
    await down.getByRole('button', { name: 'Remove' }).click();
    await down
      .getByRole('button', { name: /Remove|Confirm|Yes/ })
      .last()
      .click();
    await down.waitFor({ state: 'detached' });
    const left = await service.driver.api<{ data: { name: string }[] }>(
      'GET',
      '/v1/mcp-servers',
      undefined,
      tenantKey,
    );
    expect(left.data.map((server) => server.name)).toEqual(['crm']);
    await page.close();
  });
});
