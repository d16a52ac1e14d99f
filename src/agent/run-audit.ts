// A scheduled run's side of the database: the job's agent settings, the previous result, and
// the audit rows of its tool calls (cron_run_tool_calls, migration 224; side_effects, 325;
// call_position, result and the statuses `started` and `replayed`, 330).
// Every statement runs in withTenant, so row-level security scopes it to the job's tenant.
import { withTenant, type Pool, type PoolClient } from '../db/pool.js';
import type { BegunCall, RecordedResult, ToolCallRecord, ToolCallStatus } from './tools/audit.js';

type Query = Pick<PoolClient, 'query'>;

export interface JobAgentSettings {
  skills: string[];
  previousResult: boolean;
}

export async function selectJobAgentSettings(
  client: Query,
  jobId: string,
): Promise<JobAgentSettings> {
  const { rows } = await client.query<{ skills: string[]; context_previous_result: boolean }>(
    'SELECT skills, context_previous_result FROM cron_jobs WHERE id = $1',
    [jobId],
  );
  return {
    skills: rows[0]?.skills ?? [],
    previousResult: rows[0]?.context_previous_result ?? false,
  };
}

export interface JobAnswerSettings {
  /** The JSON Schema of the answer (migration 350); null: free text. */
  outputSchema: Record<string, unknown> | null;
  /** The job's model list, primary first; null: none of its own. */
  models: string[] | null;
  /**
   * Whether a rule of the job (or, when it has none of its own, of the tenant's defaults) is
   * `agent`: only then is the notify tool offered, as only then does a call send anything.
   */
  notifyAgent: boolean;
}

export async function selectJobAnswerSettings(
  client: Query,
  jobId: string,
): Promise<JobAnswerSettings> {
  // The rules in force as channel_enqueue_run reads them: the job's own (an empty list too), or
  // the tenant's defaults when it has none.
  const { rows } = await client.query<{
    output_schema: Record<string, unknown> | null;
    models: string[] | null;
    notify_agent: boolean;
  }>(
    `SELECT j.output_schema, j.models,
            CASE WHEN j.notify_rules IS NULL
                 THEN EXISTS (SELECT 1 FROM notify_tenant_rules t
                               WHERE t.tenant_id = j.tenant_id AND t.notify_when = 'agent')
                 ELSE EXISTS (SELECT 1 FROM jsonb_array_elements(j.notify_rules) r
                               WHERE r->>'when' = 'agent')
            END AS notify_agent
       FROM cron_jobs j WHERE j.id = $1`,
    [jobId],
  );
  return {
    outputSchema: rows[0]?.output_schema ?? null,
    models: rows[0]?.models ?? null,
    notifyAgent: rows[0]?.notify_agent ?? false,
  };
}

export type PreviousResult = { result: string; scheduledAt: Date } | null;

/** The latest successful run of the job before this occurrence: its result and nominal time. */
export async function selectPreviousResult(
  client: Query,
  jobId: string,
  before: Date,
): Promise<PreviousResult> {
  const { rows } = await client.query<{ result: string | null; scheduled_at: Date }>(
    `SELECT result, scheduled_at FROM cron_job_runs
     WHERE cron_job_id = $1 AND status = 'success' AND scheduled_at < $2
     ORDER BY scheduled_at DESC LIMIT 1`,
    [jobId, before],
  );
  const row = rows[0];
  return row && row.result !== null ? { result: row.result, scheduledAt: row.scheduled_at } : null;
}

/** The audit of one attempt of a run: auditTools' `begin` and `record`. */
export interface RunToolJournal {
  begin(call: BegunCall): Promise<RecordedResult | null>;
  record(record: ToolCallRecord): Promise<void>;
}

/**
 * A call with side effects is looked up, then written `started` before it is made; its outcome
 * later completes that row. Any other call is written once, as it ends.
 */
export function createRunJournal(pool: Pool, tenantId: string, runId: string): RunToolJournal {
  /** The seq of this attempt's `started` rows, by position. */
  const started = new Map<number, number>();
  return {
    begin: async (call) => {
      const { recorded, seq } = await withTenant(pool, tenantId, async (client) => {
        const found = await selectRecordedResult(client, runId, call);
        if (found) return { recorded: found, seq: null };
        const { rows } = await client.query<{ seq: number }>(
          `INSERT INTO cron_run_tool_calls (run_id, seq, tenant_id, tool, arguments, status,
             duration_ms, side_effects, call_position)
           VALUES ($1, (SELECT coalesce(max(c.seq), 0) + 1 FROM cron_run_tool_calls c
                         WHERE c.run_id = $1),
             $2, $3, $4, 'started', 0, true, $5)
           RETURNING seq`,
          [runId, tenantId, call.tool, JSON.stringify(call.arguments), call.seq],
        );
        return { recorded: null, seq: rows[0]!.seq };
      });
      if (seq !== null) started.set(call.seq, seq);
      return recorded;
    },
    record: async (record) => {
      const seq = started.get(record.seq);
      if (seq === undefined) return insertToolCall(pool, tenantId, runId, record);
      started.delete(record.seq);
      await withTenant(pool, tenantId, (client) =>
        client.query(
          `UPDATE cron_run_tool_calls
              SET status = $3, error = $4, http_status = $5, duration_ms = $6,
                  request_bytes = $7, response_bytes = $8, side_effects = $9, result = $10
            WHERE run_id = $1 AND seq = $2`,
          [
            runId,
            seq,
            record.status,
            record.error,
            record.httpStatus,
            record.durationMs,
            record.requestBytes,
            record.responseBytes,
            record.sideEffects,
            record.result,
          ],
        ),
      );
    },
  };
}

/**
 * The result of the identical call that completed in an earlier attempt: same position, tool and
 * stored arguments (after redaction: what is compared is what is stored), an outcome recorded
 * with a result. Rows of this attempt cannot match: its positions only grow.
 */
async function selectRecordedResult(
  client: Query,
  runId: string,
  call: BegunCall,
): Promise<RecordedResult | null> {
  const { rows } = await client.query<{ result: string; http_status: number | null }>(
    `SELECT result, http_status FROM cron_run_tool_calls
      WHERE run_id = $1 AND call_position = $2 AND tool = $3 AND arguments = $4::jsonb
        AND status IN ('ok', 'error') AND result IS NOT NULL
      ORDER BY seq DESC LIMIT 1`,
    [runId, call.seq, call.tool, JSON.stringify(call.arguments)],
  );
  const row = rows[0];
  return row ? { result: row.result, httpStatus: row.http_status } : null;
}

/**
 * Writes one call. A later attempt of the run (a retry) numbers its calls after the earlier
 * attempts', which stay: the run's calls read in order across its attempts.
 */
export async function insertToolCall(
  pool: Pool,
  tenantId: string,
  runId: string,
  record: ToolCallRecord,
): Promise<void> {
  await withTenant(pool, tenantId, (client) =>
    client.query(
      `INSERT INTO cron_run_tool_calls (run_id, seq, tenant_id, tool, arguments, status, error,
         http_status, duration_ms, request_bytes, response_bytes, side_effects, call_position,
         result)
       VALUES ($1, greatest($2, (SELECT coalesce(max(c.seq), 0) + 1 FROM cron_run_tool_calls c
                                  WHERE c.run_id = $1)),
         $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $2, $13)`,
      [
        runId,
        record.seq,
        tenantId,
        record.tool,
        JSON.stringify(record.arguments),
        record.status,
        record.error,
        record.httpStatus,
        record.durationMs,
        record.requestBytes,
        record.responseBytes,
        record.sideEffects,
        record.result,
      ],
    ),
  );
}

export interface ToolCallView {
  seq: number;
  tool: string;
  arguments: unknown;
  status: ToolCallStatus;
  error: string | null;
  http_status: number | null;
  duration_ms: number;
  request_bytes: number;
  response_bytes: number;
  created_at: string;
}

/** The tool calls of a run, in order (none for another tenant's run: RLS). */
export async function listToolCalls(client: Query, runId: string): Promise<ToolCallView[]> {
  const { rows } = await client.query<Omit<ToolCallView, 'created_at'> & { created_at: Date }>(
    `SELECT seq, tool, arguments, status, error, http_status, duration_ms, request_bytes,
       response_bytes, created_at
     FROM cron_run_tool_calls WHERE run_id = $1 ORDER BY seq`,
    [runId],
  );
  return rows.map((row) => ({ ...row, created_at: row.created_at.toISOString() }));
}
