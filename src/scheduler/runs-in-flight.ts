// The occurrences running on this pod, per job and nominal time (a job may have several: its
// overlap policy), each with the controller that aborts it. The dispatcher's bookkeeping.
import type { Occurrence } from './occurrence.js';

export interface InFlight {
  occurrence: Occurrence;
  controller: AbortController;
  done: Promise<void>;
  /** Its run, once claimed (a cancel names it). */
  runId?: string;
}

export class RunsInFlight {
  private readonly byJob = new Map<string, Map<number, InFlight>>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(run: InFlight): void {
    const { jobId, scheduledAtMs } = run.occurrence;
    let ofJob = this.byJob.get(jobId);
    if (!ofJob) this.byJob.set(jobId, (ofJob = new Map()));
    ofJob.set(scheduledAtMs, run);
    this.count += 1;
  }

  delete(occurrence: Occurrence): void {
    const ofJob = this.byJob.get(occurrence.jobId);
    if (ofJob?.delete(occurrence.scheduledAtMs)) this.count -= 1;
    if (ofJob?.size === 0) this.byJob.delete(occurrence.jobId);
  }

  has(jobId: string): boolean {
    return this.byJob.has(jobId);
  }

  /** The nominal times of the job's occurrences in flight here. */
  nominalTimesOf(jobId: string): number[] | undefined {
    const ofJob = this.byJob.get(jobId);
    return ofJob ? [...ofJob.keys()] : undefined;
  }

  at(jobId: string, scheduledAtMs: number): InFlight | undefined {
    return this.byJob.get(jobId)?.get(scheduledAtMs);
  }

  ofJob(jobId: string): Iterable<InFlight> {
    return this.byJob.get(jobId)?.values() ?? [];
  }

  all(): InFlight[] {
    return [...this.byJob.values()].flatMap((runs) => [...runs.values()]);
  }
}
