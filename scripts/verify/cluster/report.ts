// The report of `npm run verify:cluster`: one row per check (expected, observed, PASS/FAIL).

/** Every check the verification makes, in report order (the e2e test expects each as PASS). */
export const CHECKS = {
  chatCreatesJob: 'chat through nginx creates the job (cronjob tool)',
  executionsPerPod: 'executions per pod ("cron job executed" lines)',
  runsSucceeded: 'runs in the window succeeded',
  noDuplicates: 'duplicate query returns no rows',
  oneModelCall: 'one model call per occurrence',
  noMissed: 'no missed occurrence between first and last',
  redisDownLogged: 'Redis primary killed: "scheduler disabled: redis unavailable"',
  readyDegraded: 'GET /health/ready through nginx while there is no primary',
  noRunsWhileDown: 'no new runs while there is no primary',
  resumed: 'runs resume after Sentinel promotes the replica',
  startedLogged: 'every pod on the new primary: "scheduler started"',
  crashFailed: 'killed pod’s run marked failed',
  rerunElsewhere: 'job runs again on another pod',
  othersKeepRunning: 'other jobs keep running after the kill',
  apiAfterKill: 'API through nginx after the kill',
  pgResumed: 'runs resume after PostgreSQL restarts',
  finalNoDuplicates: 'end: duplicate query returns no rows',
  finalOneModelCall: 'end: one model call per occurrence',
  finalLogsMatch: 'end: each live pod logged exactly its runs',
  effectsOnce: 'http_request side effects: one key per occurrence, none lost',
  webhooksDelivered: 'webhooks: every delivery received, repeats with the same id only',
} as const;

export type CheckId = keyof typeof CHECKS;

export interface Check {
  section: string;
  id: CheckId;
  expected: string;
  observed: string;
  pass: boolean;
}

export class Report {
  readonly checks: Check[] = [];
  /** Checks of a step not asked for this run (an opt-in step): neither passed nor missing. */
  private readonly skipped = new Set<CheckId>();
  constructor(private readonly say: (line: string) => void) {}

  skip(id: CheckId, why: string): void {
    this.skipped.add(id);
    this.say(`SKIP ${CHECKS[id]}: ${why}`);
  }

  add(section: string, id: CheckId, expected: string, observed: string, pass: boolean): void {
    this.checks.push({ section, id, expected, observed, pass });
    this.say(`${pass ? 'PASS' : 'FAIL'} ${CHECKS[id]}: ${observed}`);
  }

  get passed(): boolean {
    const seen = new Set(this.checks.map((check) => check.id));
    const all = (Object.keys(CHECKS) as CheckId[]).every(
      (id) => seen.has(id) || this.skipped.has(id),
    );
    return all && this.checks.every((check) => check.pass);
  }

  /** Aligned lines, grouped by section; checks never reached (an early abort) are listed as FAIL. */
  format(header: string[], footer: string[]): string {
    const out: string[] = ['', '='.repeat(100), ...header, '='.repeat(100)];
    let section = '';
    const done = new Set(this.checks.map((check) => check.id));
    const missing = (Object.keys(CHECKS) as CheckId[]).filter(
      (id) => !done.has(id) && !this.skipped.has(id),
    );
    const rows: Check[] = [
      ...this.checks,
      ...missing.map((id) => ({
        section: 'not reached',
        id,
        expected: '(check did not run)',
        observed: 'aborted before this check',
        pass: false,
      })),
    ];
    for (const check of rows) {
      if (check.section !== section) {
        section = check.section;
        out.push('', `## ${section}`);
      }
      out.push(`${check.pass ? 'PASS' : 'FAIL'}  ${CHECKS[check.id]}`);
      out.push(`      expected: ${check.expected}`);
      out.push(`      observed: ${check.observed}`);
    }
    const failed = rows.filter((check) => !check.pass).length;
    out.push('', '-'.repeat(100));
    out.push(...footer);
    out.push(
      `RESULT: ${failed === 0 ? 'PASS' : 'FAIL'} (${rows.length - failed} of ${rows.length} checks passed)`,
    );
    return out.join('\n');
  }
}

/** Seconds with one decimal, for the report. */
export function secs(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
