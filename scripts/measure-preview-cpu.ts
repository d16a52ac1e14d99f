// CPU time of POST /v1/cron-jobs/preview's computation for worst-case inputs (count 100, sparse
// and DST-crossing schedules) in random zones and start dates, after a warm-up of the code (not
// of the zones: every measured call is likely a zone-year never seen before).
//   node --import tsx scripts/measure-preview-cpu.ts
import { previewSchedule } from '../src/jobs/commands.js';

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

function measure(calls: number): number[] {
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
    previewSchedule({ schedule, timezone: zone, count: 100, from }, new Date());
    const used = process.cpuUsage(before);
    samples.push((used.user + used.system) / 1000);
  }
  return samples.sort((a, b) => a - b);
}

measure(60);
const samples = measure(600);
const q = (p: number) =>
  (samples[Math.min(samples.length - 1, Math.floor(p * samples.length))] ?? 0).toFixed(2);
console.log(
  `preview, count 100, ${samples.length} calls: p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, max ${q(1)} ms CPU`,
);
