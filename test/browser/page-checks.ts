// Accessibility scans (axe) and screenshots for the dashboard's browser tests.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Locator, Page } from 'playwright-core';
import { REPO_ROOT } from '../helpers/process-cli.js';

export interface AxeFigure {
  page: string;
  scheme: 'light' | 'dark';
  violations: { id: string; impact: string | null; nodes: number }[];
  passes: number;
  incomplete: number;
}

const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

/** Runs axe on the page as it is now (WCAG 2.2 AA rules plus best practices). */
export async function scanPage(
  page: Page,
  name: string,
  scheme: 'light' | 'dark',
): Promise<AxeFigure> {
  const result = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  return {
    page: name,
    scheme,
    violations: result.violations.map((v) => ({
      id: v.id,
      impact: v.impact ?? null,
      nodes: v.nodes.length,
    })),
    passes: result.passes.length,
    incomplete: result.incomplete.length,
  };
}

export function seriousOrWorse(figures: AxeFigure[]) {
  return figures.flatMap((f) =>
    f.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${f.page} (${f.scheme}): ${v.id} ×${v.nodes}`),
  );
}

export function writeAxeReport(name: string, figures: AxeFigure[]): void {
  const dir = path.join(REPO_ROOT, 'test-results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `axe-${name}.json`), JSON.stringify(figures, null, 2) + '\n');
}

export const VIEWPORTS = {
  laptop: { width: 1366, height: 860 },
  phone: { width: 390, height: 844 },
} as const;

/**
 * Where screenshots go: docs/img (tracked, shown by docs/dashboard.md) only when asked with
 * HERMESX_UPDATE_SCREENSHOTS=1, so a plain test run leaves the working tree clean; otherwise a
 * folder under the system's temp dir.
 */
export function screenshotDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.HERMESX_UPDATE_SCREENSHOTS === '1'
    ? path.join(REPO_ROOT, 'docs', 'img')
    : path.join(os.tmpdir(), 'hermesx-screenshots');
}

/** dashboard-<name>-<viewport>-<scheme>.png in screenshotDir(), for docs/dashboard.md. */
export async function screenshot(
  page: Page,
  name: string,
  viewport: keyof typeof VIEWPORTS,
  scheme: 'light' | 'dark',
  mask: Locator[] = [],
): Promise<void> {
  const dir = screenshotDir();
  mkdirSync(dir, { recursive: true });
  await page.setViewportSize(VIEWPORTS[viewport]);
  await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
  await page.screenshot({
    path: path.join(dir, `dashboard-${name}-${viewport}-${scheme}.png`),
    fullPage: viewport === 'phone',
    animations: 'disabled',
    mask,
    maskColor: '#8a8f9c',
  });
}
