// The report of `npm run verify:docker`: one row per step (section, PASS/FAIL, seconds, what was
// observed). A failed step prints the tail of the container logs that explain it.
import { logsOf, type Output } from './engine.js';
import type { Say } from '../harness.js';

export interface StepResult {
  section: string;
  name: string;
  pass: boolean;
  ms: number;
  observed: string;
}

export const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Thrown by a step to fail it with a message; any other error fails it too. */
export class StepFailure extends Error {}

export function expect(condition: unknown, message: string): asserts condition {
  if (!condition) throw new StepFailure(message);
}

/** The first lines of a command's output, for a failure message. */
export function outputOf(out: Output, lines = 12): string {
  return `${out.stdout}${out.stderr}`.trim().split('\n').slice(-lines).join('\n');
}

export class StepReport {
  readonly steps: StepResult[] = [];
  section = '';
  constructor(private readonly say: Say) {}

  /**
   * Runs one step: it returns what it observed, or throws why it failed. On failure the logs of
   * `explain` (container names) are printed. Returns whether it passed, so a section can stop
   * where later steps would only repeat the failure.
   */
  async step(name: string, fn: () => Promise<string>, explain: string[] = []): Promise<boolean> {
    const started = Date.now();
    let pass = true;
    let observed: string;
    try {
      observed = await fn();
    } catch (err) {
      pass = false;
      observed = err instanceof Error ? err.message : String(err);
    }
    const ms = Date.now() - started;
    this.steps.push({ section: this.section, name, pass, ms, observed });
    const first = observed.split('\n')[0] ?? '';
    this.say(`${pass ? 'PASS' : 'FAIL'} ${name} (${secs(ms)}): ${first}`);
    if (!pass) {
      const rest = observed.split('\n').slice(1);
      for (const line of rest) this.say(`     ${line}`);
      for (const container of explain) {
        const logs = await logsOf(container, 30).catch(() => '');
        this.say(`     --- docker logs --tail 30 ${container}`);
        for (const line of logs.trim().split('\n')) this.say(`     | ${line}`);
      }
    }
    return pass;
  }

  /** A section that could not run at all (its set-up failed). */
  skip(name: string, why: string): void {
    this.steps.push({ section: this.section, name, pass: false, ms: 0, observed: why });
    this.say(`FAIL ${name}: ${why}`);
  }

  get failed(): number {
    return this.steps.filter((s) => !s.pass).length;
  }

  get passed(): number {
    return this.steps.filter((s) => s.pass).length;
  }

  /** The report as text, grouped by section: verdict, time and step, then what was observed. */
  format(header: string[], footer: string[]): string {
    const out = ['', '='.repeat(100), ...header, '='.repeat(100)];
    let section = '';
    for (const step of this.steps) {
      if (step.section !== section) {
        section = step.section;
        out.push('', `## ${section}`);
      }
      const observed = (step.observed.split('\n')[0] ?? '').slice(0, 160);
      out.push(`${step.pass ? 'PASS' : 'FAIL'} ${secs(step.ms).padStart(8)}  ${step.name}`);
      out.push(`               ${observed}`);
    }
    out.push('', ...footer, '='.repeat(100));
    return out.join('\n');
  }
}
