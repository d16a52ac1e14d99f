// One dashboard under test: a real `saas-api` pod from sources (the suite's PostgreSQL and Redis,
// a fake model), the built dashboard, and a Chromium with a page driver.
import { inject } from 'vitest';
import { startPod, type Pod } from '../helpers/cluster.js';
import { createTestDatabase } from '../helpers/database.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { launchChromium, type Chromium } from './chromium.js';
import { createDriver, type Driver } from './driver.js';
import { writeAxeReport } from './page-checks.js';
import { ensureWebBuilt } from './web-build.js';

export const ADMIN_TOKEN = 'browser-admin-token-0123456789abcdef';
const WAIT_MS = 20_000;

export interface DashboardService {
  pod: Pod;
  llm: FakeLlm;
  driver: Driver;
  /** Writes the axe figures (test-results/axe-<name>.json), closes Chromium, the pod, the model. */
  stop(): Promise<void>;
}

export async function startDashboardService(
  name: string,
  env: Record<string, string> = {},
  port?: number,
): Promise<DashboardService> {
  await ensureWebBuilt();
  const databaseUrl = await createTestDatabase();
  const llm = await startFakeLlm();
  let chromium: Chromium | undefined;
  let pod: Pod | undefined;
  try {
    pod = await startPod({
      databaseUrl,
      redisUrl: inject('redisUrl'),
      llmUrl: llm.url,
      podId: `browser-${name}`,
      ...(port === undefined ? {} : { port }),
      env: { HERMES_ACP_TOKEN: ADMIN_TOKEN, ...env },
    });
    chromium = await launchChromium();
  } catch (err) {
    await pod?.stop();
    await llm.close();
    throw err;
  }
  const driver = createDriver({
    baseUrl: pod.url,
    adminToken: ADMIN_TOKEN,
    context: chromium.context,
    waitMs: WAIT_MS,
  });
  const started = pod;
  const browser = chromium;
  return {
    pod: started,
    llm,
    driver,
    stop: async () => {
      writeAxeReport(name, driver.axe);
      await browser.close();
      await started.stop();
      await llm.close();
    },
  };
}
