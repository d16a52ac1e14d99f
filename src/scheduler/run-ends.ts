// Occurrences waiting for a run of their job on this pod to end (a buffer_one or cancel_other
// occurrence waiting for the job's lock): woken at once instead of at their next poll. The
// scheduler tells it each run that ended here, from the dispatcher's results.

export class RunEnds {
  private readonly waiters = new Map<string, Set<() => void>>();

  /** Calls `wake` when a run of the job ends here; returns the way to stop waiting. */
  wait(jobId: string, wake: () => void): () => void {
    let ofJob = this.waiters.get(jobId);
    if (!ofJob) this.waiters.set(jobId, (ofJob = new Set()));
    const set = ofJob;
    set.add(wake);
    return () => {
      set.delete(wake);
      if (set.size === 0 && this.waiters.get(jobId) === set) this.waiters.delete(jobId);
    };
  }

  /** A run of the job ended on this pod. */
  ended(jobId: string): void {
    for (const wake of [...(this.waiters.get(jobId) ?? [])]) wake();
  }
}
