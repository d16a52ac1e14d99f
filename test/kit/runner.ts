// A scripted stand-in for the agent: what each run does (answer, fail, hang) is the test's to
// say, and every call is recorded with what the pod sent and when it settled.
import type { ErrorKind } from '../../src/domain/vocabulary.js';
import type { AgentRunner, RunContext, RunReply, RunRequest } from '../../src/scheduler/ports.js';
import type { Clock } from '../../src/services/clock.js';

export type RunBehaviour =
  /** Resolves after afterMs of fake time (at once without); rejects on abort unless ignoreSignal. */
  | { kind: 'resolve'; afterMs?: number; result?: string; ignoreSignal?: boolean }
  /** Throws (an agent_error); with errorKind, answers a failure of that kind instead. */
  | { kind: 'reject'; afterMs?: number; error?: string; errorKind?: ErrorKind }
  /** Never resolves by itself; rejects with the signal's reason when aborted. */
  | { kind: 'hang' }
  /** Never settles, whatever the signal does. */
  | { kind: 'ignore' };

export interface RunnerCall {
  podId: string;
  request: RunRequest;
  signal: AbortSignal;
  /** The runner got past beforeSend: its request "reached the model". */
  sent: boolean;
  startedMs: number;
  /** When the runner's promise settled (null while it has not). */
  settledMs: number | null;
}

/** A scripted AgentRunner that records every call. */
export class FakeRunner {
  readonly calls: RunnerCall[] = [];
  /** What the next call does; the default resolves at once with "ok". */
  behaviour: (request: RunRequest, call: number) => RunBehaviour = () => ({ kind: 'resolve' });
  /** Calls whose promise has not settled, in total and by job, with their maxima. */
  active = 0;
  maxActive = 0;
  readonly activeByJob = new Map<string, number>();
  maxActivePerJob = 0;

  constructor(private readonly clock: Clock) {}

  forPod(podId: string): AgentRunner {
    return (request, context) => this.run(podId, request, context);
  }

  callsFor(jobId: string): RunnerCall[] {
    return this.calls.filter((call) => call.request.jobId === jobId);
  }

  private run(podId: string, request: RunRequest, context: RunContext): Promise<RunReply> {
    const { signal } = context;
    const call: RunnerCall = {
      podId,
      request,
      signal,
      sent: false,
      startedMs: this.clock.now(),
      settledMs: null,
    };
    const behaviour = this.behaviour(request, this.calls.length);
    this.calls.push(call);
    this.active += 1;
    this.maxActive = Math.max(this.maxActive, this.active);
    const perJob = (this.activeByJob.get(request.jobId) ?? 0) + 1;
    this.activeByJob.set(request.jobId, perJob);
    this.maxActivePerJob = Math.max(this.maxActivePerJob, perJob);
    const settled = () => {
      call.settledMs = this.clock.now();
      this.active -= 1;
      this.activeByJob.set(request.jobId, (this.activeByJob.get(request.jobId) ?? 1) - 1);
    };
    const answer = this.behave(behaviour, signal);
    answer.catch(() => {});
    const promise = context.beforeSend().then(() => {
      call.sent = true;
      return answer;
    });
    promise.then(settled, settled);
    return promise;
  }

  private behave(behaviour: RunBehaviour, signal: AbortSignal): Promise<RunReply> {
    return new Promise<RunReply>((resolve, reject) => {
      if (behaviour.kind === 'ignore') return;
      const honour =
        behaviour.kind === 'hang' || !('ignoreSignal' in behaviour && behaviour.ignoreSignal);
      let timer: unknown;
      if (honour) {
        const onAbort = () => {
          this.clock.clearTimeout(timer);
          reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
        };
        if (signal.aborted) return onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
      }
      if (behaviour.kind === 'hang') return;
      const finish = () => {
        if (behaviour.kind === 'resolve') resolve({ ok: true, text: behaviour.result ?? 'ok' });
        else if (behaviour.errorKind) {
          const error = behaviour.error ?? 'agent failed';
          resolve({ ok: false, errorKind: behaviour.errorKind, error });
        } else reject(new Error(behaviour.error ?? 'agent failed'));
      };
      if (behaviour.afterMs === undefined) finish();
      else timer = this.clock.setTimeout(finish, behaviour.afterMs);
    });
  }
}
