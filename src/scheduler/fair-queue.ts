// Fairness across tenants. When a pod has more due occurrences than free slots, they go out
// round-robin: one occurrence per tenant per turn, tenants in id order, a tenant's own in job-id
// order. A tenant with 2,400 jobs due at one second therefore delays another tenant's occurrence
// by at most one of its own per turn, whatever its backlog. Pure, apart from the queue's state.
import { Fifo } from './fifo.js';
import type { Occurrence } from './occurrence.js';

const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The order in which a pod with no free slot hands out these occurrences: every pod computes the
 * same one from the same list, so pods taking over a list walk it from the other end.
 */
export function orderFairly(occurrences: readonly Occurrence[]): Occurrence[] {
  const byTenant = new Map<string, Occurrence[]>();
  for (const occurrence of occurrences) {
    const list = byTenant.get(occurrence.tenantId);
    if (list) list.push(occurrence);
    else byTenant.set(occurrence.tenantId, [occurrence]);
  }
  const tenants = [...byTenant.keys()].sort(byId);
  const lists = tenants.map((tenant) => {
    const list = byTenant.get(tenant) as Occurrence[];
    return list.sort((a, b) => byId(a.jobId, b.jobId));
  });
  const ordered: Occurrence[] = [];
  for (let turn = 0; ordered.length < occurrences.length; turn++) {
    for (const list of lists) {
      const occurrence = list[turn];
      if (occurrence) ordered.push(occurrence);
    }
  }
  return ordered;
}

interface Waiting {
  occurrence: Occurrence;
  seq: number;
}

/**
 * Occurrences waiting for a slot on this pod, at most one per job (a newer occurrence of a job
 * overtakes the older, which is returned to be counted as missed), handed out round-robin across
 * tenants. Memory is bounded by the number of jobs the pod holds.
 */
export class FairQueue {
  private readonly waiting = new Map<string, Waiting>();
  private readonly byTenant = new Map<string, Fifo<{ jobId: string; seq: number }>>();
  /** Tenants with waiting occurrences, in id order; `cursor` is the next one's index. */
  private tenants: string[] = [];
  private cursor = 0;
  private nextSeq = 1;

  get size(): number {
    return this.waiting.size;
  }

  /** The occurrence of this job waiting here, if any. */
  get(jobId: string): Occurrence | undefined {
    return this.waiting.get(jobId)?.occurrence;
  }

  /** Queues an occurrence at the back of its tenant; returns the one it overtook, if any. */
  push(occurrence: Occurrence): Occurrence | undefined {
    return this.insert(occurrence, false);
  }

  /** Puts an occurrence back at the front of its tenant (it could not run yet). */
  unshift(occurrence: Occurrence): Occurrence | undefined {
    return this.insert(occurrence, true);
  }

  /**
   * The next occurrence by round robin, skipping tenants for which `skipTenant` says so (those
   * keep their place). Undefined when nothing may go.
   */
  shift(skipTenant: (tenantId: string) => boolean = () => false): Occurrence | undefined {
    for (let tried = 0; tried < this.tenants.length;) {
      if (this.cursor >= this.tenants.length) this.cursor = 0;
      const tenant = this.tenants[this.cursor] as string;
      if (skipTenant(tenant)) {
        this.cursor += 1;
        tried += 1;
        continue;
      }
      const occurrence = this.takeFrom(tenant);
      if (occurrence) return occurrence;
      // takeFrom removed the emptied tenant; the cursor already points at the next one.
    }
    return undefined;
  }

  /** Removes and returns the occurrences for which `expired` holds. */
  removeWhere(expired: (occurrence: Occurrence) => boolean): Occurrence[] {
    const removed: Occurrence[] = [];
    for (const [jobId, entry] of this.waiting) {
      if (!expired(entry.occurrence)) continue;
      this.waiting.delete(jobId);
      removed.push(entry.occurrence);
    }
    return removed;
  }

  clear(): void {
    this.waiting.clear();
    this.byTenant.clear();
    this.tenants = [];
    this.cursor = 0;
  }

  private insert(occurrence: Occurrence, front: boolean): Occurrence | undefined {
    const old = this.waiting.get(occurrence.jobId);
    const seq = this.nextSeq++;
    this.waiting.set(occurrence.jobId, { occurrence, seq });
    let fifo = this.byTenant.get(occurrence.tenantId);
    if (!fifo) {
      fifo = new Fifo();
      this.byTenant.set(occurrence.tenantId, fifo);
      this.addTenant(occurrence.tenantId);
    }
    if (front) fifo.unshift({ jobId: occurrence.jobId, seq });
    else fifo.push({ jobId: occurrence.jobId, seq });
    return old?.occurrence;
  }

  /** The tenant's next live entry (entries overtaken or removed are skipped), or undefined. */
  private takeFrom(tenant: string): Occurrence | undefined {
    const fifo = this.byTenant.get(tenant);
    for (let entry = fifo?.shift(); entry; entry = fifo?.shift()) {
      const current = this.waiting.get(entry.jobId);
      if (current?.seq !== entry.seq) continue;
      this.waiting.delete(entry.jobId);
      if (fifo?.length === 0) this.removeTenant(tenant);
      else this.cursor += 1;
      return current.occurrence;
    }
    this.removeTenant(tenant);
    return undefined;
  }

  private addTenant(tenant: string): void {
    let i = 0;
    while (i < this.tenants.length && (this.tenants[i] as string) < tenant) i++;
    this.tenants.splice(i, 0, tenant);
    if (i < this.cursor) this.cursor += 1;
  }

  private removeTenant(tenant: string): void {
    this.byTenant.delete(tenant);
    const i = this.tenants.indexOf(tenant);
    if (i < 0) return;
    this.tenants.splice(i, 1);
    if (i < this.cursor) this.cursor -= 1;
  }
}
