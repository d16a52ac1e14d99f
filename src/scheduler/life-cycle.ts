// The life of one occurrence in one place (docs/scheduler.md, "Life cycle of an occurrence"):
// the words the code, the logs, the metrics and the API use for it, the stages it goes through,
// and `step`, which says what each event does to it as data (effects) for run-occurrence.ts to
// perform. The dispatcher holds an occurrence in the stages before a slot (`waitFor`) and ends it
// there itself (`dropOccurrence`); run-occurrence.ts takes it from its slot to its end. Pure: no
// I/O, no clock. It imports only its vocabulary and lock rules, so every other module may use it.

import {
  OCCURRENCE_KINDS,
  settles,
  type OccurrenceKind,
  type OverlapPolicy,
  type SkipReason,
  type Stage,
} from '../domain/vocabulary.js';
import { decideOnHeld, lockRuleOf, type HolderView, type LockRule } from './lock-rules.js';

export {
  decideOnHeld,
  lockKeyOf,
  lockRuleOf,
  waitsForLock,
  type HolderView,
  type LockRule,
} from './lock-rules.js';

export {
  ERROR_KINDS,
  LOCK_STATES,
  OCCURRENCE_KINDS,
  OVERLAP_POLICIES,
  RUN_STATUSES,
  SKIP_REASONS,
  STAGES,
  settles,
  type ErrorKind,
  type LockState,
  type OccurrenceKind,
  type OverlapPolicy,
  type RunStatus,
  type SkipReason,
  type Stage,
} from '../domain/vocabulary.js';

/** The stages whose end (or failure) also frees the slot: the claim has been asked for. */
const CLAIM_PHASE: readonly Stage[] = ['locked', 'running', 'recording'];

export interface OccurrenceInput {
  kind: OccurrenceKind;
  policy: OverlapPolicy;
  jobId: string;
  scheduledAtMs: number;
}

export interface OccurrenceState extends OccurrenceInput {
  stage: Stage;
  lock: LockRule;
  /** The token of this occurrence's lock while it holds it. */
  token: string | null;
  /** Its run row is this pod's. */
  claimed: boolean;
  /** The dispatcher's slot and the scheduler's events know that it runs here. */
  announced: boolean;
  /** How it ended (stage "ended"). */
  end?: { skipped: SkipReason } | { recorded: 'success' | 'failed' };
}

/** What moves an occurrence: the answer of the effect performed last, or the dispatcher's word. */
export type LifeEvent =
  | { type: 'fired'; owned: boolean }
  | { type: 'taken' }
  | { type: 'dropped'; reason: 'overlap' | 'expired' | 'passed_over' }
  | { type: 'slot'; loaded: boolean }
  | { type: 'locked'; token: string }
  | { type: 'lock_held'; holder: HolderView | null }
  | { type: 'claimed' }
  /** A claim refused, a lock that failed, or a wait that ended without the lock. */
  | { type: 'refused'; reason: SkipReason }
  | { type: 'answered' }
  | { type: 'recorded'; status: 'success' | 'failed' };

/** What to do, in order; the last effect that answers (take_lock … record) yields the next event. */
export type Effect =
  | { type: 'take_lock'; key: string | undefined; at: 'nominal' | 'now' }
  | { type: 'claim' }
  | { type: 'claim_waiting' }
  | { type: 'announce' }
  | { type: 'cancel_earlier' }
  | { type: 'wait_for_lock' }
  | { type: 'send' }
  | { type: 'free_slot' }
  | { type: 'record' }
  | { type: 'release_lock'; key: string | undefined; token: string; done: boolean }
  | { type: 'hand_back' }
  | { type: 'fail_claimed' }
  | { type: 'skip'; reason: SkipReason; holder?: HolderView | null };

export interface Transition {
  state: OccurrenceState;
  effects: Effect[];
}

/** An occurrence as it first appears: fired ones planned, queued ones in the database. */
export function arrive(input: OccurrenceInput): OccurrenceState {
  const claimed = OCCURRENCE_KINDS[input.kind] === 'claimed';
  const stage: Stage = input.kind === 'queued' ? 'queued' : claimed ? 'waiting' : 'planned';
  const lock = lockRuleOf(input.kind, input.policy, input.jobId, input.scheduledAtMs);
  return { ...input, stage, lock, token: null, claimed, announced: false };
}

/** Where an occurrence waits for a slot here: this pod's queue, or another owner's take-over list. */
export type WaitingStage = Extract<Stage, 'waiting' | 'stealable'>;

/**
 * An occurrence as the dispatcher holds it: a fired one in this pod's queue (its owner is this
 * pod) or in a take-over list (another owner's), a queued one taken from the database, an adopted
 * one as it arrived (claimed, waiting).
 */
export function waitFor(input: OccurrenceInput, where: WaitingStage): OccurrenceState {
  const state = arrive(input);
  if (state.stage === 'planned') {
    return step(state, { type: 'fired', owned: where === 'waiting' }).state;
  }
  return state.stage === 'queued' ? step(state, { type: 'taken' }).state : state;
}

/** The occurrence got a slot here: the transition run-occurrence.ts starts from. */
export const startOccurrence = (
  input: OccurrenceInput,
  loaded: boolean,
  where: WaitingStage = 'waiting',
): Transition => step(waitFor(input, where), { type: 'slot', loaded });

/** Why the dispatcher itself ends an occurrence that waits for a slot. */
export type DropReason = Extract<LifeEvent, { type: 'dropped' }>['reason'];

/** The dispatcher drops a waiting occurrence: the reason its end is recorded and announced with. */
export function dropOccurrence(
  input: OccurrenceInput,
  where: WaitingStage,
  reason: DropReason,
): SkipReason {
  const { state } = step(waitFor(input, where), { type: 'dropped', reason });
  if (!state.end || !('skipped' in state.end)) {
    throw new Error(`occurrence life cycle: a drop ended in ${state.stage}`);
  }
  return state.end.skipped;
}

/** The one transition function: where `event` takes `state`, and what that does. */
export function step(state: OccurrenceState, event: LifeEvent): Transition {
  const { stage } = state;
  const to = (next: Stage, effects: Effect[], change: Partial<OccurrenceState> = {}) => ({
    state: { ...state, ...change, stage: next },
    effects,
  });
  switch (event.type) {
    case 'fired':
      if (stage === 'planned') return to(event.owned ? 'waiting' : 'stealable', []);
      break;
    case 'taken':
      if (stage === 'queued') return to('waiting', []);
      break;
    case 'dropped':
      if (stage === 'waiting' || stage === 'stealable') return skipped(state, event.reason);
      break;
    case 'slot':
      if (stage !== 'waiting' && stage !== 'stealable') break;
      if (event.loaded) return takeFirst(state);
      return skipped(
        state,
        'not_loaded',
        undefined,
        state.claimed ? [{ type: 'fail_claimed' }] : [],
      );
    case 'locked':
      if (stage !== 'started' && stage !== 'awaiting_lock') break;
      if (!state.claimed) return to('locked', [{ type: 'claim' }], { token: event.token });
      return to('running', [...announce(state), { type: 'send' }], {
        token: event.token,
        announced: true,
      });
    case 'lock_held':
      if (stage === 'started') return onHeld(state, event.holder);
      break;
    case 'claimed':
      // Claimed ahead of the lock (claim_waiting), or after it (claim, straight into running).
      if (stage === 'started') return to('awaiting_lock', waitTurn(state), claimedHere);
      if (stage === 'locked')
        return to('running', [...announce(state), { type: 'send' }], claimedHere);
      break;
    case 'refused':
      if (
        stage === 'started' ||
        stage === 'awaiting_lock' ||
        stage === 'locked' ||
        stage === 'running'
      ) {
        return skipped(state, event.reason);
      }
      break;
    case 'answered':
      if (stage === 'running') return to('recording', [{ type: 'free_slot' }, { type: 'record' }]);
      break;
    case 'recorded':
      // A waiting run that never got the lock is recorded failed by its wait.
      if (stage === 'recording' || stage === 'awaiting_lock') {
        return to('ended', release(state, true), { token: null, end: { recorded: event.status } });
      }
      break;
  }
  throw new Error(`occurrence life cycle: no move from ${stage} on ${event.type}`);
}

const claimedHere = { claimed: true, announced: true };

/** What an occurrence left half-way (an effect threw) still owes: its slot and its lock. */
export function abandon(state: OccurrenceState): Effect[] {
  const slot: Effect[] = CLAIM_PHASE.includes(state.stage) ? [{ type: 'free_slot' }] : [];
  return [...slot, ...release(state, true)];
}

function takeFirst(state: OccurrenceState): Transition {
  const started = { ...state, stage: 'started' as const };
  const { key, take } = state.lock;
  if (take === 'try' || take === 'try_at_now') {
    const at = take === 'try' ? 'nominal' : 'now';
    return { state: started, effects: [{ type: 'take_lock', key, at }] };
  }
  if (take === 'wait') {
    return {
      state: { ...started, stage: 'awaiting_lock', announced: true },
      effects: waitTurn(state),
    };
  }
  return {
    state: { ...started, stage: 'running', announced: true },
    effects: [...announce(state), { type: 'send' }],
  };
}

function onHeld(state: OccurrenceState, holder: HolderView | null): Transition {
  if (state.lock.take === 'try_at_now') {
    return skipped(state, 'lock_held', holder, [{ type: 'hand_back' }]);
  }
  if (decideOnHeld(state.policy, holder, state.scheduledAtMs) === 'skip') {
    return skipped(state, 'lock_held', holder);
  }
  return { state, effects: [{ type: 'claim_waiting' }] };
}

/** Claimed, the occurrence runs here: a cancel_other one first asks the earlier run to stop. */
function waitTurn(state: OccurrenceState): Effect[] {
  const cancel: Effect[] = state.policy === 'cancel_other' ? [{ type: 'cancel_earlier' }] : [];
  return [...announce(state), ...cancel, { type: 'wait_for_lock' }];
}

const announce = (state: OccurrenceState): Effect[] =>
  state.announced ? [] : [{ type: 'announce' }];

function release(state: OccurrenceState, settled: boolean): Effect[] {
  if (state.token === null) return [];
  const done = state.lock.leavesDone && settled;
  return [{ type: 'release_lock', key: state.lock.key, token: state.token, done }];
}

function skipped(
  state: OccurrenceState,
  reason: SkipReason,
  holder?: HolderView | null,
  before: Effect[] = [],
): Transition {
  const slot: Effect[] = CLAIM_PHASE.includes(state.stage) ? [{ type: 'free_slot' }] : [];
  const skip: Effect =
    holder === undefined ? { type: 'skip', reason } : { type: 'skip', reason, holder };
  return {
    state: { ...state, stage: 'ended', token: null, end: { skipped: reason } },
    effects: [...before, ...slot, ...release(state, settles(reason)), skip],
  };
}
