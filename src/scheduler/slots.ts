// A pod's slots: up to SCHEDULER_MAX_CONCURRENT_RUNS + SCHEDULER_CLAIM_AHEAD occurrences admitted
// at once (taking their lock and claim, waiting claimed, or calling their agent), of which at most
// SCHEDULER_MAX_CONCURRENT_RUNS call their agent (the model slots, send-permits.ts). Owned by the
// dispatcher; each admitted occurrence holds its Slot until the agent answers.
import type { Histogram } from 'prom-client';
import type { WaitingStage } from './life-cycle.js';
import type { Slot } from './pipeline.js';
import { SendPermits } from './send-permits.js';
import type { SchedulerSettings } from './settings.js';
import type { Clock } from '../services/clock.js';

export class PodSlots {
  private busy = 0;
  private readonly admissions: number;
  private readonly permits: SendPermits;
  /** Without claims ahead the model slot is the admission itself, taken with it. */
  private readonly sendOnAdmission: boolean;

  constructor(
    settings: Pick<SchedulerSettings, 'maxConcurrentRuns' | 'claimAheadRuns'>,
    private readonly clock: Clock,
    /** How long each run held a model slot (hermesx_scheduler_model_slot_seconds). */
    private readonly modelSlot: Histogram,
    /** A slot was freed: the dispatcher hands out the next occurrence. */
    private readonly onFree: () => void,
  ) {
    const claimAhead = settings.claimAheadRuns ?? 0;
    this.admissions = settings.maxConcurrentRuns + claimAhead;
    this.permits = new SendPermits(settings.maxConcurrentRuns);
    this.sendOnAdmission = claimAhead === 0;
  }

  /** More occurrences that may be admitted now. */
  get free(): number {
    return this.admissions - this.busy;
  }

  /** The pod stops: runs waiting for a model slot are told so, and none is granted any more. */
  stop(): void {
    this.permits.stop();
  }

  /** Admits one occurrence; `claimed` hears its run id once its lock and claim are its own. */
  take(from: WaitingStage, claimed: (runId: string) => void): Slot {
    this.busy += 1;
    let held = true;
    let sending = this.sendOnAdmission && this.permits.tryTake();
    let sendingSinceMs = this.clock.now();
    return {
      from,
      claimed,
      send: async (signal) => {
        if (sending) return 'granted';
        const answer = await this.permits.acquire(signal);
        sending = answer === 'granted';
        sendingSinceMs = this.clock.now();
        return answer;
      },
      release: () => {
        if (!held) return;
        held = false;
        if (sending) {
          this.permits.release();
          this.modelSlot.observe((this.clock.now() - sendingSinceMs) / 1000);
        }
        sending = false;
        this.busy -= 1;
        this.onFree();
      },
    };
  }
}
