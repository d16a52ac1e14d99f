// CPU time of POST /v1/cron-jobs/preview's computation for worst-case inputs (count 100, sparse
// and DST-crossing schedules) in random zones and start dates, after a warm-up of the code (not
// of the zones: every measured call is likely a zone-year never seen before).
//   node --import tsx scripts/measure-preview-cpu.ts
import { PREVIEW_HORIZON_YEARS } from '../src/jobs/commands.js';
import { minIntervalMs, nextOccurrences, parseSchedule } from '../src/schedule/schedule.js';

const zones = Intl.supportedValuesOf('timeZone');
const schedules = [
  '0 0 29 2 *',
  '0 0 1 1 *',
  '30 2 * * SUN',
  '0 0 L * *',
  '*/5 * * * * *',
  '0 0 29 2 1',
];
let seed = 1;
const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647;

const horizon = (from: Date) =>
  new Date(from.getTime() + PREVIEW_HORIZON_YEARS * 365.25 * 86_400_000);

/** What create and update compute: parse, the closest gap (minimum interval), next_run_at. */
function jobMaths(input: { schedule: string; timezone: string; from: Date }): void {
  const check = parseSchedule(input);
  if (!check.ok) throw new Error(check.message);
  minIntervalMs(check.schedule, input.from);
  check.schedule.nextAfter(input.from);
}

function measure(calls: number, what: 'preview' | 'job' = 'preview'): number[] {
  const samples: number[] = [];
  for (let i = 0; i < calls; i++) {
    const zone = zones[Math.floor(rand() * zones.length)] as string;
    const schedule = schedules[i % schedules.length] as string;
    const from = new Date(
      Date.UTC(
        1990 + Math.floor(rand() * 100),
        Math.floor(rand() * 12),
        1 + Math.floor(rand() * 28),
      ),
    );
    const before = process.cpuUsage();
    // The preview's maths, measured without the route's pauses between slices (during which
    // the process would also run its garbage collection).
    if (what === 'preview') nextOccurrences({ schedule, timezone: zone }, from, 100, horizon(from));
    else jobMaths({ schedule, timezone: zone, from });
    const used = process.cpuUsage(before);
    samples.push((used.user + used.system) / 1000);
  }
  return samples.sort((a, b) => a - b);
}

measure(60);
const samples = measure(600);
const jobSamples = measure(600, 'job');
const at = (list: number[], p: number) =>
  (list[Math.min(list.length - 1, Math.floor(p * list.length))] ?? 0).toFixed(2);
console.log(
  `create/update maths, ${jobSamples.length} calls: p50 ${at(jobSamples, 0.5)} ms, p99 ${at(jobSamples, 0.99)} ms, max ${at(jobSamples, 1)} ms CPU`,
);
const q = (p: number) =>
  (samples[Math.min(samples.length - 1, Math.floor(p * samples.length))] ?? 0).toFixed(2);
console.log(
  `preview, count 100, ${samples.length} calls: p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, max ${q(1)} ms CPU`,
);
