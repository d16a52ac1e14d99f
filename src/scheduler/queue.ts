/**
 * The pod's single timeline: a binary min-heap of (due time, job) with lazy deletion, so 100k
 * jobs cost one timer and O(log n) per change. An entry is stale once its job has moved on
 * (rescheduled or removed); stale entries are dropped when they reach the top.
 */
export interface QueueEntry {
  dueMs: number;
  jobId: string;
  seq: number;
}

export class OccurrenceQueue {
  private heap: QueueEntry[] = [];
  private current = new Map<string, number>();
  private nextSeq = 1;

  get size(): number {
    return this.current.size;
  }

  /** Schedules (or reschedules) a job; any earlier entry for it becomes stale. */
  schedule(jobId: string, dueMs: number): void {
    const seq = this.nextSeq++;
    this.current.set(jobId, seq);
    this.push({ dueMs, jobId, seq });
  }

  remove(jobId: string): void {
    this.current.delete(jobId);
  }

  has(jobId: string): boolean {
    return this.current.has(jobId);
  }

  clear(): void {
    this.heap = [];
    this.current.clear();
  }

  /** Due time of the earliest live entry, or undefined when empty. */
  peekDueMs(): number | undefined {
    this.dropStale();
    return this.heap[0]?.dueMs;
  }

  /** Removes and returns every live entry due at or before nowMs, earliest first. */
  popDue(nowMs: number): QueueEntry[] {
    const due: QueueEntry[] = [];
    for (;;) {
      this.dropStale();
      const top = this.heap[0];
      if (!top || top.dueMs > nowMs) return due;
      this.pop();
      this.current.delete(top.jobId);
      due.push(top);
    }
  }

  private dropStale(): void {
    for (;;) {
      const top = this.heap[0];
      if (!top || this.current.get(top.jobId) === top.seq) return;
      this.pop();
    }
  }

  private push(entry: QueueEntry): void {
    const heap = this.heap;
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i] as QueueEntry, heap[parent] as QueueEntry)) break;
      [heap[i], heap[parent]] = [heap[parent] as QueueEntry, heap[i] as QueueEntry];
      i = parent;
    }
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop();
    if (!last || heap.length === 0) return;
    heap[0] = last;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < heap.length && before(heap[left] as QueueEntry, heap[smallest] as QueueEntry)) {
        smallest = left;
      }
      if (right < heap.length && before(heap[right] as QueueEntry, heap[smallest] as QueueEntry)) {
        smallest = right;
      }
      if (smallest === i) return;
      [heap[i], heap[smallest]] = [heap[smallest] as QueueEntry, heap[i] as QueueEntry];
      i = smallest;
    }
  }
}

function before(a: QueueEntry, b: QueueEntry): boolean {
  return a.dueMs < b.dueMs || (a.dueMs === b.dueMs && a.seq < b.seq);
}
