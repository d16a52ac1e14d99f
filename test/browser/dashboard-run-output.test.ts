// A structured answer in a real Chromium against a real `saas-api`: the run page of a job with
// an output schema shows the parsed output as pretty-printed JSON and names the model of each
// call; the job form shows the schema and the models for editing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/process-wait.js';
import { seriousOrWorse } from './page-checks.js';
import { startDashboardService, type DashboardService } from './service.js';

let service: DashboardService;
let tenantKey: string;
const SCHEMA = {
  type: 'object',
  properties: { open: { type: 'integer' }, oldest: { type: 'string' } },
  required: ['open'],
};

beforeAll(async () => {
  service = await startDashboardService('output');
  tenantKey = await service.driver.tenantWithKey('Output Inc');
  service.llm.setHandler(() => ({ content: '{"open": 2, "oldest": "INC-41"}' }));
}, 180_000);

afterAll(async () => {
  await service?.stop();
});

describe('the output of a structured answer, in Chromium', () => {
  const api = <T>(method: string, path: string, body?: unknown) =>
    service.driver.api<T>(method, path, body, tenantKey);

  it('shows the parsed output and the model of each call on the run page', async () => {
    const job = await api<{ id: string }>('POST', '/v1/cron-jobs', {
      name: 'Incident count',
      schedule: '0 6 * * *',
      prompt: 'Count the open incidents',
      output_schema: SCHEMA,
    });
    await api('POST', `/v1/cron-jobs/${job.id}/trigger`, {});
    const runId = await waitFor(
      async () => {
        const runs = await api<{ data: { id: string; status: string }[] }>(
          'GET',
          `/v1/cron-jobs/${job.id}/runs`,
        );
        expect(runs.data[0]).toMatchObject({ status: 'success' });
        return runs.data[0]!.id;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: 'the run to succeed' },
    );
    const page = await service.driver.newPage();
    await service.driver.signIn(page, tenantKey);
    await page.goto(new URL(`/jobs/${job.id}/runs/${runId}`, service.pod.url).toString());
    await page.getByRole('heading', { name: 'Output' }).waitFor();
    const output = await page.locator('pre.output-json').textContent();
    expect(output).toBe(JSON.stringify({ open: 2, oldest: 'INC-41' }, null, 2));
    const detail = await api<{ attempt_log: { model: string | null }[] }>(
      'GET',
      `/v1/runs/${runId}`,
    );
    const model = detail.attempt_log[0]?.model;
    expect(model).toBeTruthy();
    const row = page.locator('table.attempts tbody tr').first();
    expect(await row.textContent()).toContain(model);
    await service.driver.scanBoth(page, 'run-output');
    await service.driver.shoot(page, 'run-output');

    await page.goto(new URL(`/jobs/${job.id}/edit`, service.pod.url).toString());
    const schema = page.locator('textarea#output_schema');
    await schema.waitFor();
    expect(JSON.parse((await schema.inputValue()) || 'null')).toEqual(SCHEMA);
    await schema.fill('{"type": "objekt"}');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(/output_schema is not a valid JSON Schema/).waitFor();
    await service.driver.shoot(page, 'job-form-output-schema');
    await page.close();
  });

  it('has no serious or critical axe violations and no CSP violations', () => {
    expect(service.driver.axe.length).toBeGreaterThanOrEqual(2);
    expect(seriousOrWorse(service.driver.axe)).toEqual([]);
    expect(service.driver.cspViolations).toEqual([]);
  });
});
