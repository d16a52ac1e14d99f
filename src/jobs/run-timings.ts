// How late an occurrence started and, apart, how long it waited between its attempts: the
// retry back-off is the retry policy's doing, not the scheduler's lateness. Pure: the run's
// times in, numbers out; the lists and the run detail both show them.

/** An earlier attempt's claim and end, as ISO texts (null when it never got that far). */
export type AttemptSpan = readonly [startedAt: string | null, finishedAt: string | null];

export interface AttemptTimingsInput {
  scheduledAt: Date;
  /** The current attempt's claim; while it waits in the queue, the previous attempt's. */
  startedAt: Date;
  status: string;
  previousSpans: readonly AttemptSpan[];
}

export interface AttemptTimings {
  /** When a pod claimed the first attempt; null while the first attempt waits in the queue. */
  firstStartedAt: Date | null;
  /** firstStartedAt minus the nominal time; null with it. */
  startLagMs: number | null;
  /** The time between attempts, summed over the attempts that started. */
  retryWaitMs: number;
}

const msOf = (text: string | null): number | null => (text === null ? null : Date.parse(text));

export function measureAttemptTimings(input: AttemptTimingsInput): AttemptTimings {
  const current = input.status === 'queued' ? null : input.startedAt.getTime();
  const starts = [...input.previousSpans.map(([startedAt]) => msOf(startedAt)), current];
  const firstStartMs = starts.find((ms) => ms !== null && Number.isFinite(ms)) ?? null;
  let retryWaitMs = 0;
  input.previousSpans.forEach(([, finishedAt], index) => {
    const endedMs = msOf(finishedAt);
    const nextStartMs = starts[index + 1] ?? null;
    if (endedMs !== null && nextStartMs !== null) retryWaitMs += Math.max(0, nextStartMs - endedMs);
  });
  return {
    firstStartedAt: firstStartMs === null ? null : new Date(firstStartMs),
    startLagMs:
      firstStartMs === null ? null : Math.round(firstStartMs - input.scheduledAt.getTime()),
    retryWaitMs: Math.round(retryWaitMs),
  };
}
