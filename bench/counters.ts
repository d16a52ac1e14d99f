// The replicas' counters (`hermesx_*_total` samples of /metrics, summed over the pods) before and
// after a measurement, so a report can say what the scheduler did: occurrences set aside, missed
// and caught up, steals, retries... whichever counters the code under test exposes.
const SAMPLE = /^(hermesx_\w+_total)(\{[^}]*\})? (\S+)$/gm;

/** Sums each counter sample (name with its labels) over the replicas' metrics texts. */
export function sumCounters(texts: Iterable<string>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const text of texts) {
    for (const [, name, labels = '', value] of text.matchAll(SAMPLE)) {
      // Requests and process figures are measured elsewhere (usage.ts); these say what the code did.
      if (!name || /^hermesx_(http|process|nodejs)_/.test(name)) continue;
      const key = `${name}${labels}`;
      out[key] = (out[key] ?? 0) + Number(value);
    }
  }
  return out;
}

/** The counters that moved between two snapshots, largest first. */
export function counterDeltas(
  before: Record<string, number>,
  after: Record<string, number>,
): [string, number][] {
  return Object.entries(after)
    .map(([key, value]): [string, number] => [
      key,
      Math.round((value - (before[key] ?? 0)) * 1000) / 1000,
    ])
    .filter(([, delta]) => delta !== 0)
    .sort((a, b) => b[1] - a[1]);
}
