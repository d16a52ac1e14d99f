// Micro-benchmark behind the W3 diagnosis: CPU time and retained heap per parsed schedule, for
// HermesX's parseSchedule (src/schedule/schedule.ts) and for a bare croner instance, then the cost of one
// nextAfter (what a sync pays per job).
// `node --expose-gc --import tsx bench/schedule-cost.ts [count]`
import { Cron } from 'croner';
import { parseSchedule } from '../src/schedule/schedule.js';

const count = Number(process.argv[2] ?? 20_000);
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

function measure(name: string, make: (i: number) => unknown): void {
  gc();
  const heap0 = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  const keep: unknown[] = [];
  for (let i = 0; i < count; i++) keep.push(make(i));
  const ms = performance.now() - t0;
  gc();
  const retained = process.memoryUsage().heapUsed - heap0;
  console.log(
    `${name}: ${((ms / count) * 1000).toFixed(0)} µs and ${(retained / count / 1024).toFixed(1)} KB retained each ` +
      `(${count} kept: ${(retained / 1e6).toFixed(0)} MB)`,
  );
  keep.length = 0;
}

const schedule = (i: number) => `${Math.floor(i / 40) % 60} ${i % 60} * * * *`;
measure('parseSchedule', (i) => {
  const parsed = parseSchedule({ schedule: schedule(i), timezone: 'UTC' });
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.schedule;
});
measure('new Cron (croner, paused)', (i) => new Cron(schedule(i), { paused: true, utcOffset: 0 }));
measure('Intl.DateTimeFormat (zone check)', () => {
  new Intl.DateTimeFormat(undefined, { timeZone: 'UTC' });
  return null;
});

// What a sync pays per job: the next occurrence after now, in UTC and in a zone with DST.
for (const timezone of ['UTC', 'Europe/Paris']) {
  const parsed = Array.from({ length: 2400 }, (_, i) => {
    const check = parseSchedule({ schedule: schedule(i), timezone });
    if (!check.ok) throw new Error(check.message);
    return check.schedule;
  });
  const now = new Date();
  const t0 = performance.now();
  for (let i = 0; i < count; i++) parsed[i % parsed.length]?.nextAfter(now);
  const us = ((performance.now() - t0) / count) * 1000;
  console.log(`nextAfter (${timezone}, 2400 patterns): ${us.toFixed(1)} µs each`);
}
