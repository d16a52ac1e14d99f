import { z } from 'zod';
import { Run } from './schemas.js';
import { WebhookDelivery } from './webhook-schemas.js';

// The run detail of GET /v1/runs/{id}: the run as lists show it, plus everything about how it ran.

const timestamp = z.string().meta({ format: 'date-time', description: 'RFC 3339 timestamp (UTC)' });

const Attempt = z.object({
  started_at: timestamp.describe('when this model request left the pod'),
  duration_ms: z.number().int().min(0).nullable().describe('null while it is in flight'),
  outcome: z
    .string()
    .nullable()
    .describe(
      'success; answered (a step before the final answer); retried_throttled (429), retried_overloaded (503) or retried_connect (sent again); fallback_unreachable, fallback_timeout, fallback_throttled or fallback_upstream_5xx (the call went on to the next model of the job’s list); or the error_kind that ended the run. null while in flight',
    ),
  model: z
    .string()
    .nullable()
    .describe('the model this request asked for (the job’s models, in order); null: not recorded'),
});

const PreviousAttempt = z.object({
  attempt: z.number().int().min(1),
  status: z.string().describe('failed'),
  error_kind: z.string().nullable(),
  error: z.string().nullable(),
  started_at: timestamp.nullable(),
  finished_at: timestamp.nullable(),
  duration_ms: z.number().int().min(0).nullable(),
  pod_id: z.string().nullable(),
  model_requests: z.number().int().min(0).describe('model requests this attempt made'),
});

export const RunDetail = Run.extend({
  job_name: z.string().describe('the job’s name now'),
  result: z
    .string()
    .nullable()
    .describe('the whole answer (up to RUN_RESULT_MAX_BYTES; see result_truncated)'),
  result_truncated: z
    .boolean()
    .describe('the answer was longer than RUN_RESULT_MAX_BYTES and `result` is cut there'),
  output: z
    .unknown()
    .describe(
      'the parsed answer of a job with an output_schema (it validated); null otherwise (free text, or a failed run)',
    ),
  prompt_sent: z
    .array(z.object({ role: z.string(), content: z.string() }))
    .nullable()
    .describe('the messages of the first model request, as sent; null before it was sent'),
  model: z.string().nullable().describe('the model that answered, as the model server named it'),
  usage: z
    .object({
      prompt_tokens: z.number().int().min(0),
      completion_tokens: z.number().int().min(0),
    })
    .nullable()
    .describe('tokens over all model requests of the run, as the model server counted them'),
  calls: z
    .array(
      z.object({
        model: z.string(),
        prompt_tokens: z.number().int().min(0),
        cached_tokens: z.number().int().min(0),
        completion_tokens: z.number().int().min(0),
        cost_micros: z.number().int().min(0).nullable(),
      }),
    )
    .describe('each model call of the last attempt: its tokens and cost (null: no price)'),
  model_requests: z
    .number()
    .int()
    .min(0)
    .describe(
      'requests the current attempt sent to the model server (throttled calls sent again and agent steps included): the number `attempts` holds, named apart from `attempt`, which counts executions of the occurrence',
    ),
  max_attempts: z
    .number()
    .int()
    .min(1)
    .nullable()
    .describe(
      "the attempts the job's retry policy allows now (1 without one; a retry by hand may go past it); null once the job is deleted",
    ),
  attempt_log: z
    .array(Attempt)
    .describe('each model request of the current attempt in order; grows while it retries'),
  previous_attempts: z
    .array(PreviousAttempt)
    .describe(
      'the outcome of each earlier attempt of this occurrence (the job’s retry policy, POST /v1/runs/{id}/retry), oldest first',
    ),
  timings: z.object({
    scheduled_at: timestamp.describe('the nominal time of the occurrence'),
    started_at: timestamp.describe(
      'when a pod claimed the current attempt (while a retry waits in the queue: the previous one)',
    ),
    model_called_at: timestamp
      .nullable()
      .describe('when the first model request of the current attempt left'),
    finished_at: timestamp.nullable(),
    first_started_at: timestamp.describe(
      'when a pod claimed the first attempt (started_at when this is the first)',
    ),
    start_lag_ms: z
      .number()
      .int()
      .describe(
        'first_started_at minus scheduled_at: how late the occurrence started; waits for retries are not in it',
      ),
    retry_wait_ms: z
      .number()
      .int()
      .min(0)
      .describe(
        'the time between attempts (the retry back-off, or until a retry by hand), summed over the attempts that started; 0 for a first attempt',
      ),
  }),
  deliveries: z
    .array(WebhookDelivery)
    .describe("the run's webhook deliveries, one per matching endpoint (at most 100)"),
}).meta({
  id: 'RunDetail',
  examples: [
    {
      id: '3f6e2a1c-8b4d-4e7f-9a2b-5c6d7e8f9a0b',
      cron_job_id: '7d0c5b8e-3f2a-4c1d-9e8b-1a2b3c4d5e6f',
      job_name: 'Morning digest',
      scheduled_at: '2026-03-02T08:00:00.000Z',
      started_at: '2026-03-02T08:00:00.012Z',
      finished_at: '2026-03-02T08:00:04.530Z',
      status: 'success',
      result: 'Two incidents are open: …',
      error: null,
      error_kind: null,
      attempts: 2,
      attempt: 1,
      model_requests: 2,
      calls: [
        {
          model: 'qwen3:30b',
          prompt_tokens: 182,
          cached_tokens: 0,
          completion_tokens: 64,
          cost_micros: 1095,
        },
      ],
      max_attempts: 3,
      duration_ms: 4518,
      pod_id: 'hermesx-7f9c-1',
      not_before: null,
      created_at: '2026-03-02T08:00:00.010Z',
      origin: 'scheduled',
      result_bytes: 27,
      result_complete: true,
      start_lag_ms: 12,
      retry_wait_ms: 0,
      prompt_tokens: 182,
      cached_tokens: 0,
      completion_tokens: 64,
      cost_micros: 1095,
      result_truncated: false,
      output: null,
      prompt_sent: [
        { role: 'system', content: 'You are HermesX, running the scheduled job …' },
        { role: 'user', content: 'Summarise the open incidents.' },
      ],
      model: 'qwen3:30b',
      usage: { prompt_tokens: 182, completion_tokens: 64 },
      attempt_log: [
        {
          started_at: '2026-03-02T08:00:00.020Z',
          duration_ms: 3,
          outcome: 'retried_throttled',
          model: 'qwen3:30b',
        },
        {
          started_at: '2026-03-02T08:00:01.020Z',
          duration_ms: 3500,
          outcome: 'success',
          model: 'qwen3:30b',
        },
      ],
      previous_attempts: [],
      timings: {
        scheduled_at: '2026-03-02T08:00:00.000Z',
        started_at: '2026-03-02T08:00:00.012Z',
        model_called_at: '2026-03-02T08:00:00.018Z',
        finished_at: '2026-03-02T08:00:04.530Z',
        first_started_at: '2026-03-02T08:00:00.012Z',
        start_lag_ms: 12,
        retry_wait_ms: 0,
      },
      deliveries: [],
    },
  ],
});
