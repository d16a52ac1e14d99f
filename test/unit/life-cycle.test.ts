import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  abandon,
  arrive,
  dropOccurrence,
  LOCK_STATES,
  lockRuleOf,
  OCCURRENCE_KINDS,
  OVERLAP_POLICIES,
  RUN_STATUSES,
  settles,
  SKIP_REASONS,
  STAGES,
  startOccurrence,
  step,
  waitFor,
  type Effect,
  type HolderView,
  type LifeEvent,
  type LockRule,
  type OccurrenceInput,
  type OccurrenceKind,
  type OverlapPolicy,
  type SkipReason,
  type Stage,
  type Transition,
} from '../../src/scheduler/life-cycle.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const T1 = 1_000_000;
const T2 = T1 + 60_000;
const JOB = 'job';
const OWN = `${JOB}@${T2}`;

const input = (kind: OccurrenceKind, policy: OverlapPolicy = 'skip'): OccurrenceInput => ({
  kind,
  policy,
  jobId: JOB,
  scheduledAtMs: T2,
});
const running = (scheduledAtMs: number): HolderView => ({
  state: 'run',
  scheduledAtMs,
  podId: 'b',
});
const done = (scheduledAtMs: number): HolderView => ({ state: 'done', scheduledAtMs, podId: 'b' });

/** Starts the occurrence with a slot and feeds it the events: its last stage and every effect. */
function walk(
  kind: OccurrenceKind,
  policy: OverlapPolicy,
  events: LifeEvent[],
): { stage: Stage; effects: Effect['type'][]; last: Effect[]; move: Transition } {
  let move = startOccurrence(input(kind, policy), true);
  const effects = move.effects.map((e) => e.type);
  for (const event of events) {
    move = step(move.state, event);
    effects.push(...move.effects.map((e) => e.type));
  }
  return { stage: move.state.stage, effects, last: move.effects, move };
}

const locked: LifeEvent = { type: 'locked', token: 'tok' };
const claimed: LifeEvent = { type: 'claimed' };
const answered: LifeEvent = { type: 'answered' };
const refused = (reason: SkipReason): LifeEvent => ({ type: 'refused', reason });
const recorded = (status: 'success' | 'failed' = 'success'): LifeEvent => ({
  type: 'recorded',
  status,
});
const release = (key: string | undefined, isDone: boolean): Effect => ({
  type: 'release_lock',
  key,
  token: 'tok',
  done: isDone,
});

describe('the lock rule: which key each kind and policy takes, and what it leaves', () => {
  const rule = (key: string | undefined, take: LockRule['take'], leavesDone: boolean) => ({
    key,
    take,
    leavesDone,
  });
  const cases: [OccurrenceKind, OverlapPolicy, LockRule][] = [];
  for (const kind of ['scheduled', 'catchup', 'manual'] as const) {
    cases.push(
      [kind, 'skip', rule(undefined, 'try', true)],
      [kind, 'buffer_one', rule(undefined, 'try', true)],
      [kind, 'cancel_other', rule(undefined, 'try', true)],
      [kind, 'allow_all', rule(OWN, 'try', true)],
    );
  }
  cases.push(
    ['adopted', 'skip', rule(undefined, 'none', true)],
    ['adopted', 'allow_all', rule(undefined, 'none', true)],
    ['adopted', 'buffer_one', rule(undefined, 'wait', true)],
    ['adopted', 'cancel_other', rule(undefined, 'wait', true)],
  );
  // A queued run takes the job's own lock (at now) whatever its policy, and leaves no marker.
  for (const policy of OVERLAP_POLICIES)
    cases.push(['queued', policy, rule(undefined, 'try_at_now', false)]);

  it('covers every kind and policy', () => {
    expect(cases).toHaveLength(Object.keys(OCCURRENCE_KINDS).length * OVERLAP_POLICIES.length);
  });

  it.each(cases)('%s × %s', (kind, policy, expected) => {
    expect(lockRuleOf(kind, policy, JOB, T2)).toEqual(expected);
  });
});

describe('a started occurrence: its first effects', () => {
  it.each<[OccurrenceKind, OverlapPolicy, Stage, Effect[]]>([
    ['scheduled', 'skip', 'started', [{ type: 'take_lock', key: undefined, at: 'nominal' }]],
    ['manual', 'allow_all', 'started', [{ type: 'take_lock', key: OWN, at: 'nominal' }]],
    ['queued', 'allow_all', 'started', [{ type: 'take_lock', key: undefined, at: 'now' }]],
    ['adopted', 'skip', 'running', [{ type: 'announce' }, { type: 'send' }]],
    ['adopted', 'buffer_one', 'awaiting_lock', [{ type: 'announce' }, { type: 'wait_for_lock' }]],
    [
      'adopted',
      'cancel_other',
      'awaiting_lock',
      [{ type: 'announce' }, { type: 'cancel_earlier' }, { type: 'wait_for_lock' }],
    ],
  ])('%s × %s goes to %s', (kind, policy, stage, effects) => {
    const move = startOccurrence(input(kind, policy), true);
    expect(move.state.stage).toBe(stage);
    expect(move.effects).toEqual(effects);
  });

  it('a job no longer loaded ends it; a run claimed already is failed first', () => {
    for (const kind of Object.keys(OCCURRENCE_KINDS) as OccurrenceKind[]) {
      const move = startOccurrence(input(kind), false);
      const fail: Effect[] = OCCURRENCE_KINDS[kind] === 'claimed' ? [{ type: 'fail_claimed' }] : [];
      expect(move.state).toMatchObject({ stage: 'ended', end: { skipped: 'not_loaded' } });
      expect(move.effects).toEqual([...fail, { type: 'skip', reason: 'not_loaded' }]);
    }
  });
});

describe('the answer of the lock', () => {
  it('locked: a fired occurrence claims, a queued run (claimed already) sends', () => {
    expect(walk('scheduled', 'skip', [locked]).last).toEqual([{ type: 'claim' }]);
    expect(walk('scheduled', 'skip', [locked]).move.state).toMatchObject({
      stage: 'locked',
      token: 'tok',
    });
    expect(walk('queued', 'skip', [locked]).last).toEqual([{ type: 'announce' }, { type: 'send' }]);
  });

  it.each<[OverlapPolicy, HolderView | null, Effect['type'][]]>([
    ['skip', running(T1), ['skip']],
    ['allow_all', running(T1), ['skip']],
    ['buffer_one', running(T1), ['claim_waiting']],
    ['cancel_other', running(T1), ['claim_waiting']],
    // A done marker, the same or a later occurrence, or an unreadable value: nothing to wait for.
    ['buffer_one', done(T1), ['skip']],
    ['buffer_one', running(T2), ['skip']],
    ['cancel_other', running(T2 + 1), ['skip']],
    ['cancel_other', null, ['skip']],
  ])('held, %s, holder %j: %j', (policy, holder, effects) => {
    const move = step(startOccurrence(input('scheduled', policy), true).state, {
      type: 'lock_held',
      holder,
    });
    expect(move.effects.map((e) => e.type)).toEqual(effects);
    if (effects[0] === 'skip') {
      expect(move.effects[0]).toEqual({ type: 'skip', reason: 'lock_held', holder });
    }
  });

  it('held, queued run: handed back to the queue, then skipped', () => {
    for (const policy of OVERLAP_POLICIES) {
      const move = step(startOccurrence(input('queued', policy), true).state, {
        type: 'lock_held',
        holder: running(T1),
      });
      expect(move.effects).toEqual([
        { type: 'hand_back' },
        { type: 'skip', reason: 'lock_held', holder: running(T1) },
      ]);
    }
  });

  it('Redis failing: skipped, nothing to free', () => {
    for (const kind of ['scheduled', 'queued'] as const) {
      const move = step(startOccurrence(input(kind), true).state, refused('redis_error'));
      expect(move.effects).toEqual([{ type: 'skip', reason: 'redis_error' }]);
    }
  });
});

describe('the answer of the claim', () => {
  it('claimed: announced and sent', () => {
    const { stage, last } = walk('scheduled', 'skip', [locked, claimed]);
    expect(stage).toBe('running');
    expect(last).toEqual([{ type: 'announce' }, { type: 'send' }]);
  });

  // A done marker only for an occurrence that is settled: "taken" ran (or runs) elsewhere.
  it.each<[OverlapPolicy, SkipReason, Effect]>([
    ['skip', 'taken', release(undefined, true)],
    ['skip', 'capped', release(undefined, false)],
    ['skip', 'db_error', release(undefined, false)],
    ['allow_all', 'taken', release(OWN, true)],
    ['allow_all', 'capped', release(OWN, false)],
  ])('%s, %s: slot freed, %j, skipped', (policy, reason, releasing) => {
    const { stage, last } = walk('catchup', policy, [locked, refused(reason)]);
    expect(stage).toBe('ended');
    expect(last).toEqual([{ type: 'free_slot' }, releasing, { type: 'skip', reason }]);
  });
});

describe('buffer_one and cancel_other: claimed ahead of the lock', () => {
  const held: LifeEvent = { type: 'lock_held', holder: running(T1) };

  it.each<[OverlapPolicy, Effect['type'][]]>([
    ['buffer_one', ['announce', 'wait_for_lock']],
    ['cancel_other', ['announce', 'cancel_earlier', 'wait_for_lock']],
  ])('%s: claimed, then %j', (policy, effects) => {
    const { stage, last } = walk('scheduled', policy, [held, claimed]);
    expect(stage).toBe('awaiting_lock');
    expect(last.map((e) => e.type)).toEqual(effects);
  });

  it.each<SkipReason>(['taken', 'capped', 'overlap', 'lock_held', 'db_error'])(
    'claim refused (%s): skipped, nothing to free',
    (reason) => {
      expect(walk('scheduled', 'buffer_one', [held, refused(reason)]).last).toEqual([
        { type: 'skip', reason },
      ]);
    },
  );

  it('its turn: sent without a second claim or announce', () => {
    const { stage, last } = walk('scheduled', 'buffer_one', [held, claimed, locked]);
    expect(stage).toBe('running');
    expect(last).toEqual([{ type: 'send' }]);
  });

  it('a wait that ends without the lock: skipped, or recorded failed by the wait itself', () => {
    for (const reason of ['redis_error', 'taken', 'handed_back'] as const) {
      expect(walk('scheduled', 'cancel_other', [held, claimed, refused(reason)]).last).toEqual([
        { type: 'skip', reason },
      ]);
    }
    const failed = walk('adopted', 'buffer_one', [recorded('failed')]);
    expect(failed.move.state).toMatchObject({ stage: 'ended', end: { recorded: 'failed' } });
    expect(failed.last).toEqual([]);
  });
});

describe('sent, answered, recorded', () => {
  it.each<[OccurrenceKind, OverlapPolicy, LifeEvent[], Effect[]]>([
    ['scheduled', 'skip', [locked, claimed], [release(undefined, true)]],
    ['manual', 'allow_all', [locked, claimed], [release(OWN, true)]],
    // A queued run may be queued again: its lock simply goes.
    ['queued', 'skip', [locked], [release(undefined, false)]],
    // An adopted skip run took no lock: nothing to release.
    ['adopted', 'skip', [], []],
  ])('%s × %s: answered → record → %j', (kind, policy, before, releasing) => {
    const answer = walk(kind, policy, [...before, answered]);
    expect(answer.stage).toBe('recording');
    expect(answer.last).toEqual([{ type: 'free_slot' }, { type: 'record' }]);
    for (const status of ['success', 'failed'] as const) {
      const end = step(answer.move.state, recorded(status));
      expect(end.state).toMatchObject({ stage: 'ended', token: null, end: { recorded: status } });
      expect(end.effects).toEqual(releasing);
    }
  });

  it('handed back before anything was sent: slot freed, lock gone without a marker', () => {
    expect(walk('scheduled', 'skip', [locked, claimed, refused('handed_back')]).last).toEqual([
      { type: 'free_slot' },
      release(undefined, false),
      { type: 'skip', reason: 'handed_back' },
    ]);
    expect(walk('adopted', 'skip', [refused('handed_back')]).last).toEqual([
      { type: 'free_slot' },
      { type: 'skip', reason: 'handed_back' },
    ]);
  });
});

describe('before the slot: timeline, queue, take-over lists, dispatcher', () => {
  it('arrives planned, queued, or waiting (adopted)', () => {
    expect(arrive(input('scheduled')).stage).toBe('planned');
    expect(arrive(input('queued')).stage).toBe('queued');
    expect(arrive(input('adopted'))).toMatchObject({ stage: 'waiting', claimed: true });
  });

  it('fired: the owner waits for a slot, the others keep it stealable', () => {
    const planned = arrive(input('scheduled'));
    expect(step(planned, { type: 'fired', owned: true }).state.stage).toBe('waiting');
    expect(step(planned, { type: 'fired', owned: false }).state.stage).toBe('stealable');
    expect(step(arrive(input('queued')), { type: 'taken' }).state.stage).toBe('waiting');
  });

  it.each(['overlap', 'expired', 'passed_over'] as const)('dropped (%s): ended', (reason) => {
    for (const stage of ['waiting', 'stealable'] as const) {
      const move = step({ ...arrive(input('scheduled')), stage }, { type: 'dropped', reason });
      expect(move.state.end).toEqual({ skipped: reason });
      expect(move.effects).toEqual([{ type: 'skip', reason }]);
    }
  });

  it("waitFor: where the dispatcher holds each kind, through the life cycle's own moves", () => {
    expect(waitFor(input('scheduled'), 'waiting').stage).toBe('waiting');
    expect(waitFor(input('catchup'), 'stealable').stage).toBe('stealable');
    expect(waitFor(input('queued'), 'waiting')).toMatchObject({ stage: 'waiting', claimed: true });
    expect(waitFor(input('adopted'), 'waiting')).toMatchObject({ stage: 'waiting', claimed: true });
  });

  it('a taken-over occurrence starts from its take-over list like an own one', () => {
    const own = startOccurrence(input('scheduled'), true, 'waiting');
    const taken = startOccurrence(input('scheduled'), true, 'stealable');
    expect(taken).toEqual(own);
  });

  it.each(['overlap', 'expired', 'passed_over'] as const)(
    'dropOccurrence (%s): the skip the dispatcher announces',
    (reason) => {
      expect(dropOccurrence(input('scheduled'), 'waiting', reason)).toBe(reason);
      expect(dropOccurrence(input('manual'), 'stealable', reason)).toBe(reason);
      expect(settles(dropOccurrence(input('catchup'), 'waiting', reason))).toBe(true);
    },
  );

  it('refuses a move the life cycle does not have', () => {
    expect(() => step(arrive(input('scheduled')), answered)).toThrow(/no move from planned/);
    expect(() => walk('scheduled', 'skip', [answered])).toThrow(/no move from started on answered/);
  });
});

describe('abandoned half-way (an effect threw): what is still owed', () => {
  it.each<[OccurrenceKind, LifeEvent[], Effect[]]>([
    ['scheduled', [], []],
    ['scheduled', [locked], [{ type: 'free_slot' }, release(undefined, true)]],
    ['scheduled', [locked, claimed], [{ type: 'free_slot' }, release(undefined, true)]],
    ['queued', [locked, answered], [{ type: 'free_slot' }, release(undefined, false)]],
    ['scheduled', [locked, claimed, answered, recorded()], []],
  ])('%s after %j', (kind, events, owed) => {
    expect(abandon(walk(kind, 'skip', events).move.state)).toEqual(owed);
  });
});

describe('the vocabularies', () => {
  it('a skip settles the occurrence, or leaves it to be tried again', () => {
    const settled = (Object.keys(SKIP_REASONS) as SkipReason[]).filter(settles);
    expect(settled.sort()).toEqual(
      ['expired', 'lock_held', 'not_loaded', 'overlap', 'passed_over', 'taken'].sort(),
    );
  });

  it('the stages name every run status and every lock state, and nothing else', () => {
    const rows = new Set(Object.values(STAGES).flatMap((s) => s.rows));
    const locks = new Set(Object.values(STAGES).flatMap((s) => s.locks));
    expect([...rows].filter((r) => r !== null).sort()).toEqual([...RUN_STATUSES].sort());
    expect([...locks].filter((l) => l !== null).sort()).toEqual([...LOCK_STATES].sort());
  });

  it('docs/scheduler.md shows the same stages, row statuses and lock states', () => {
    const doc = readFileSync(path.join(ROOT, 'docs/scheduler.md'), 'utf8');
    const stageTable = doc.split('\n| Stage ')[1]?.split('\n\n')[0] ?? '';
    const table = stageTable
      .split('\n')
      .filter((line) => /^\| `\w+`/.test(line))
      .map((line) => line.split('|').map((cell) => cell.trim()));
    const codes = (cell: string | undefined) =>
      [...(cell ?? '').matchAll(/`(\w+)`/g)].map((m) => m[1]);
    expect(table.map((cells) => codes(cells[1])[0])).toEqual(Object.keys(STAGES));
    for (const cells of table) {
      const stage = STAGES[codes(cells[1])[0] as Stage];
      expect(codes(cells[3])).toEqual(stage.rows.filter((r) => r !== null));
      expect(codes(cells[4])).toEqual(stage.locks.filter((l) => l !== null));
    }
  });
});
