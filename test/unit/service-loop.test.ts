// The one loop every background service runs on, driven by a fake clock: rounds on the interval,
// a failure logged and retried after the back-off, kicks, and a stop that lets the round under
// way end and leaves no timer; and the service list, started in order and stopped in reverse.
import { describe, expect, it } from 'vitest';
import { startLoop, type LoopOptions } from '../../src/services/loop.js';
import { startServices, stopServices, type Service } from '../../src/services/service.js';
import { capturingLogger, silentLogger } from '../helpers/log.js';
import { FakeClock, flushAsync } from '../kit/clock.js';

const START_MS = Date.UTC(2026, 0, 5, 9, 0, 0);

/** A round the test ends by hand, and the rounds seen (fake time at which each began). */
function controlledRounds(clock: FakeClock) {
  const began: number[] = [];
  const signals: AbortSignal[] = [];
  let finish: ((err?: Error) => void) | undefined;
  const round = (signal: AbortSignal) => {
    began.push(clock.now());
    signals.push(signal);
    return new Promise<void>((resolve, reject) => {
      finish = (err) => (err ? reject(err) : resolve());
    });
  };
  const end = async (err?: Error) => {
    finish!(err);
    finish = undefined;
    await flushAsync();
  };
  return { began, signals, round, end };
}

function loopOn(clock: FakeClock, options: Partial<LoopOptions> & Pick<LoopOptions, 'round'>) {
  return startLoop({ name: 'test', intervalMs: 10_000, clock, log: silentLogger(), ...options });
}

describe('the loop', () => {
  it('runs a round each interval after the previous one ends, the first one after an interval', async () => {
    const clock = new FakeClock(START_MS);
    const rounds = controlledRounds(clock);
    const loop = loopOn(clock, { round: rounds.round });
    await clock.advance(9_999);
    expect(rounds.began).toEqual([]);
    await clock.advance(1);
    expect(rounds.began).toEqual([START_MS + 10_000]);
    // Time spent in a round does not count towards the next interval.
    await clock.advance(3_000);
    await rounds.end();
    expect(clock.nextTimerMs()).toBe(START_MS + 23_000);
    await loop.stop();
  });

  it('runs the first round at once when asked to', async () => {
    const clock = new FakeClock(START_MS);
    const rounds = controlledRounds(clock);
    const loop = loopOn(clock, { round: rounds.round, immediate: true });
    await clock.advance(0);
    expect(rounds.began).toEqual([START_MS]);
    await rounds.end();
    await loop.stop();
  });

  it('logs a failed round with the loop and the attempt, backs off 1 s, 2 s, 4 s … up to the interval, and a success restores the interval', async () => {
    const clock = new FakeClock(START_MS);
    const { log, lines } = capturingLogger('json');
    const rounds = controlledRounds(clock);
    const loop = startLoop({ name: 'upkeep', intervalMs: 5_000, clock, log, round: rounds.round });
    await clock.advance(5_000);
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) {
      await rounds.end(new Error('database unreachable'));
      delays.push(clock.nextTimerMs()! - clock.now());
      await clock.advanceTo(clock.nextTimerMs()!);
    }
    expect(delays).toEqual([1_000, 2_000, 4_000, 5_000]);
    expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual(
      [1, 2, 3, 4].map((attempt) =>
        expect.objectContaining({
          loop: 'upkeep',
          error: 'database unreachable',
          attempt,
          msg: 'background task failed, retrying',
        }),
      ),
    );
    await rounds.end();
    expect(clock.nextTimerMs()! - clock.now()).toBe(5_000);
    await loop.stop();
  });

  it("takes a service's own back-off and failure line", async () => {
    const clock = new FakeClock(START_MS);
    const rounds = controlledRounds(clock);
    const seen: [string, number, number][] = [];
    const loop = loopOn(clock, {
      round: rounds.round,
      backoff: { firstMs: 60_000, maxMs: 200_000 },
      onFailure: (err, failures, retryInMs) =>
        seen.push([(err as Error).message, failures, retryInMs]),
    });
    await clock.advance(10_000);
    for (let i = 0; i < 3; i++) {
      await rounds.end(new Error('no store'));
      await clock.advanceTo(clock.nextTimerMs()!);
    }
    expect(seen).toEqual([
      ['no store', 1, 60_000],
      ['no store', 2, 120_000],
      ['no store', 3, 200_000],
    ]);
    await rounds.end();
    await loop.stop();
  });

  it('runs a round at once when kicked, or right after the round under way', async () => {
    const clock = new FakeClock(START_MS);
    const rounds = controlledRounds(clock);
    const loop = loopOn(clock, { round: rounds.round });
    await clock.advance(1_000);
    loop.kick();
    await clock.advance(0);
    expect(rounds.began).toEqual([START_MS + 1_000]);
    loop.kick();
    await rounds.end();
    await clock.advance(0);
    expect(rounds.began).toEqual([START_MS + 1_000, START_MS + 1_000]);
    await rounds.end();
    expect(clock.nextTimerMs()).toBe(START_MS + 11_000);
    await loop.stop();
  });

  it('stops at once: the round under way sees its signal and is waited for; nothing runs after, no timer is left', async () => {
    const clock = new FakeClock(START_MS);
    const rounds = controlledRounds(clock);
    const loop = loopOn(clock, { round: rounds.round });
    await clock.advance(10_000);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    expect(rounds.signals[0]!.aborted).toBe(true);
    await flushAsync();
    expect(stopped).toBe(false);
    loop.kick();
    await rounds.end();
    await stopping;
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(60_000);
    expect(rounds.began).toHaveLength(1);
  });

  it('stops between rounds without waiting and without a timer left', async () => {
    const clock = new FakeClock(START_MS);
    const rounds = controlledRounds(clock);
    const loop = loopOn(clock, { round: rounds.round });
    await loop.stop();
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(60_000);
    expect(rounds.began).toEqual([]);
  });
});

describe('the service list', () => {
  it('starts in order, each once the one before it started, and tells them to stop in reverse order without waiting in line', async () => {
    const events: string[] = [];
    const drains = new Map<string, () => void>();
    const service = (name: string): Service => ({
      name,
      start: async () => {
        events.push(`start ${name}`);
        await flushAsync();
        events.push(`started ${name}`);
      },
      stop: (graceMs) => {
        events.push(`stop ${name} ${graceMs}`);
        return new Promise<void>((resolve) => drains.set(name, resolve));
      },
    });
    const services = ['scheduler', 'sender', 'http'].map(service);
    await startServices(services);
    expect(events).toEqual([
      'start scheduler',
      'started scheduler',
      'start sender',
      'started sender',
      'start http',
      'started http',
    ]);
    events.length = 0;
    let stopped = false;
    const stopping = stopServices(services, 30_000).then(() => (stopped = true));
    expect(events).toEqual(['stop http 30000', 'stop sender 30000', 'stop scheduler 30000']);
    drains.get('http')!();
    drains.get('sender')!();
    await flushAsync();
    expect(stopped).toBe(false);
    drains.get('scheduler')!();
    await stopping;
  });
});
