// A run as the scheduler claims, runs and records it: the words the core, the adapters and the
// API share.
import type { ErrorKind, RunStatus } from './vocabulary.js';

/**
 * Why a run ran: from the timeline, by hand ("run now"), caught up after an outage, or added by
 * POST /v1/cron-jobs/{id}/backfill.
 */
export const RUN_ORIGINS = ['scheduled', 'manual', 'catch_up', 'backfill'] as const;

export type RunOrigin = (typeof RUN_ORIGINS)[number];

/** A claimed occurrence: its run, and the job's name and prompt as committed at the claim. */
export interface ClaimedRun {
  runId: string;
  name: string;
  prompt: string;
  /** The job's own timeout (at most the exec timeout), and model; null: the defaults. */
  timeoutMs?: number | null;
  model?: string | null;
  /** Claimed straight into 'running' (claimRun's sendAs): no mark is needed before the send. */
  sent?: boolean;
  /** What the claim read for the agent, so the run needs no read of its own (absent: it reads). */
  agent?: AgentContextRef;
}

/** The job's agent settings and the tenant's run_context_version, as committed at the claim. */
export interface AgentContextRef {
  skills: readonly string[];
  previousResult: boolean;
  /** tenants.run_context_version (a bigint, as text): what the pod loaded under it still holds. */
  tenantVersion: string;
  /** The job's answer settings as the claim read them (absent: the run reads them itself). */
  answer?: {
    /** The JSON Schema of the answer; null: free text. */
    outputSchema: Record<string, unknown> | null;
    /** The job's model list, primary first; null: none of its own. */
    models: string[] | null;
    /** A notify rule in force is `agent` (the notify tool is offered). */
    notifyAgent: boolean;
  };
  /** The budgets its model calls are held to, as the claim read them (absent: read when needed). */
  limits?: BudgetLimits;
}

/** The budgets a tenant's model calls are held to: its monthly ones and the job's (null: none). */
export interface BudgetLimits {
  monthlyMicros: number | null;
  monthlyTokens: number | null;
  jobDailyMicros: number | null;
  runTokens: number | null;
}

export interface RunOutcome {
  success: boolean;
  /** The whole answer (bounded by RUN_RESULT_MAX_BYTES); recordRun stores what exceeds 8 KiB. */
  result: string | null;
  error: string | null;
  errorKind: ErrorKind | null;
  /** Model requests sent for this run, retries included. */
  attempts: number;
  /** The answer was longer than RUN_RESULT_MAX_BYTES and `result` is cut there. */
  resultTruncated?: boolean;
  /** The parsed answer of a job with an output schema (successful runs only). */
  output?: unknown;
  /** Where the whole answer is when it is not inline (set by recordRun once it is stored). */
  resultObjectKey?: string | null;
  /** Size of the whole answer in UTF-8 bytes (set by recordRun). */
  resultBytes?: number | null;
  /** What the run detail shows: the prompt as sent, the model, its usage, each attempt. */
  detail?: RunDetail;
}

/** One model request of a run: when it left, how long it took, how it ended. */
export interface AttemptRecord {
  startedAt: string;
  durationMs: number | null;
  /** success | answered (a step before the final answer) | retried_throttled |
   * retried_overloaded | retried_connect | fallback_<reason> (the call went on to the next
   * model) | an ErrorKind; null while in flight. */
  outcome: string | null;
  /** The model the request asked for (null: not said, runs before migration 350). */
  model?: string | null;
}

export interface RunDetail {
  promptSent: { role: string; content: string }[] | null;
  /** The model that answered, as the model server named it. */
  model: string | null;
  usage: { promptTokens: number; completionTokens: number } | null;
  attemptLog: AttemptRecord[];
  /** Each model call's tokens and cost (the usage ledger's rows of this run). */
  calls?: UsageCall[];
  /** A period budget refused the run: when its period turns (the job pauses until then). */
  budgetResetsAt?: string | null;
}

/** One model call's usage as the answer reported it, priced (docs/usage.md). */
export interface UsageCall {
  model: string;
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
  /** Micro-dollars; null: the model has no price (unknown, never guessed). */
  costMicros: number | null;
}

/** A run in flight on some pod: claimed (nothing sent to the model yet) or running. */
export interface ActiveRun {
  runId: string;
  jobId: string;
  podId: string;
  status: Extract<RunStatus, 'claimed' | 'running'>;
}

/** A claimed run taken over from a pod that is gone: this pod runs it. */
export interface AdoptedRun extends ClaimedRun {
  jobId: string;
  tenantId: string;
  scheduledAt: Date;
  /** Which attempt of the occurrence this is (the first is 1; a retry's is higher). */
  attempt: number;
}

export interface RunHistoryUpkeep {
  created: number;
  dropped: number;
  deleted: number;
  /** Deleted jobs whose last run is gone, purged now: their result objects can go. */
  purgedJobs: readonly { tenantId: string; jobId: string }[];
}
