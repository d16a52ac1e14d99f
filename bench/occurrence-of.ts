// Parses describeOccurrence's job id and occurrence; one copy, so model server and run-tools agree.
const JOB_ID = /\(id ([0-9a-f-]{36})\)/;
const OCCURRENCE = /which is (\S+) UTC/;

/**
 * The job id and occurrence (ISO text, unparsed) in a system message as describeOccurrence
 * (src/agent/cron-runner.ts) writes it; undefined unless both are there.
 */
export function readOccurrence(system: string): { jobId: string; iso: string } | undefined {
  const jobId = JOB_ID.exec(system)?.[1];
  const iso = OCCURRENCE.exec(system)?.[1];
  return jobId && iso ? { jobId, iso } : undefined;
}
