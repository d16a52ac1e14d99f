import pg from 'pg';
import type { Logger } from '../log.js';

export const JOBS_CHANNEL = 'hermesx_cron_jobs';
export const TRIGGERS_CHANNEL = 'hermesx_cron_triggers';
/**
 * POST /v1/runs/{id}/cancel: "<job id>|<run id>", heard by every pod; a cancel_other job's later
 * occurrence adds "|overlap" (scheduler_cancel_older).
 */
export const CANCELS_CHANNEL = 'hermesx_run_cancels';

export interface JobListenerOptions {
  databaseUrl: string;
  log: Logger;
  /** Called with the ids of changed jobs, batched over a few milliseconds. */
  onJobsChanged: (ids: string[]) => void;
  /**
   * Called instead when more than MAX_NOTIFIED_IDS jobs changed together (an import by SQL, or
   * the '*' notification a bulk statement sends, migration 311): re-read rather than load by id.
   */
  onManyJobsChanged: () => void;
  /** Called for "run now" requests: the job and the nominal time of that one-off occurrence. */
  onTrigger: (jobId: string, scheduledAtMs: number) => void;
  /** Called for a cancel request: the pod running it stops it. */
  onCancel?: (jobId: string, runId: string, why?: string) => void;
  /**
   * Called after a reconnect: notifications may have been missed since lostAtMs (Date.now() when
   * the connection was seen lost).
   */
  onReconnected: (lostAtMs: number) => void;
  batchMs?: number;
  /**
   * How often the connection is proved alive with a query (default 5 s). A link broken without a
   * close (a dead peer, a dropped route) sends no error; without this, LISTEN would hear nothing
   * until the kernel gave up on the socket, minutes later.
   */
  heartbeatMs?: number;
}

export interface JobListener {
  close(): Promise<void>;
}

const RECONNECT_MAX_MS = 10_000;
const HEARTBEAT_MS = 5_000;
/** More ids than this in one batch are not kept: the pod re-reads instead (memory stays bounded). */
export const MAX_NOTIFIED_IDS = 1000;
const MANY_JOBS = '*';

/**
 * LISTENs for job changes on a dedicated connection, reconnecting with back-off. Ids arriving
 * together (a bulk insert) are delivered as one batch so pods load them with one query.
 */
export function listenForJobChanges(options: JobListenerOptions): JobListener {
  const { log, batchMs = 10, heartbeatMs = HEARTBEAT_MS } = options;
  let client: pg.Client | undefined;
  let closed = false;
  let failures = 0;
  /** When the connection in use was lost (undefined while listening). */
  let lostAtMs: number | undefined;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let batch = new Set<string>();
  let many = false;
  let batchTimer: NodeJS.Timeout | undefined;
  /** When the connection in use last answered (its heartbeat, or its LISTEN). */
  let aliveAtMs = 0;

  const flush = () => {
    batchTimer = undefined;
    const ids = [...batch];
    batch = new Set();
    if (many) options.onManyJobsChanged();
    else if (ids.length > 0) options.onJobsChanged(ids);
    many = false;
  };
  const note = (payload: string) => {
    if (!many && (payload === MANY_JOBS || batch.size >= MAX_NOTIFIED_IDS)) {
      many = true;
      batch.clear();
    }
    if (!many) batch.add(payload);
    batchTimer ??= setTimeout(flush, batchMs);
  };

  const connect = async (isReconnect: boolean) => {
    const next = new pg.Client({
      connectionString: options.databaseUrl,
      application_name: 'hermesx-listen',
      connectionTimeoutMillis: heartbeatMs * 2,
      keepAlive: true,
    });
    next.on('notification', (message) => {
      if (!message.payload) return;
      if (message.channel === TRIGGERS_CHANNEL) {
        const [jobId, ms] = message.payload.split('|');
        if (jobId && Number.isFinite(Number(ms))) options.onTrigger(jobId, Number(ms));
        return;
      }
      if (message.channel === CANCELS_CHANNEL) {
        const [jobId, runId, why] = message.payload.split('|');
        if (jobId && runId) options.onCancel?.(jobId, runId, why);
        return;
      }
      if (message.channel === JOBS_CHANNEL) note(message.payload);
    });
    next.on('error', (err) => {
      log.warn({ error: err.message }, 'job notifications: connection lost');
      retry(next);
    });
    next.on('end', () => retry(next));
    try {
      await next.connect();
      await next.query(
        `LISTEN ${JOBS_CHANNEL}; LISTEN ${TRIGGERS_CHANNEL}; LISTEN ${CANCELS_CHANNEL}`,
      );
    } catch (err) {
      log.warn(
        { error: err instanceof Error ? err.message : String(err) },
        'job notifications: cannot listen',
      );
      retry(next);
      return;
    }
    if (closed) {
      await next.end().catch(() => {});
      return;
    }
    client = next;
    aliveAtMs = Date.now();
    failures = 0;
    const lostAt = lostAtMs ?? Date.now();
    lostAtMs = undefined;
    if (isReconnect) {
      log.info('job notifications: listening again');
      options.onReconnected(lostAt);
    }
  };

  const retry = (failed: pg.Client, lostSinceMs = Date.now()) => {
    failed.removeAllListeners('end');
    failed.on('error', () => {});
    void failed.end().catch(() => {});
    if (client === failed) {
      client = undefined;
      lostAtMs = lostSinceMs;
    }
    if (closed || reconnectTimer) return;
    failures += 1;
    const delayMs = Math.min(250 * 2 ** failures, RECONNECT_MAX_MS);
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      void connect(true);
    }, delayMs);
  };

  // A query that does not answer within the next beat means the link is gone, since the last
  // answer: what was notified after it may be lost (the reconnect reads it back from there).
  const beat = async () => {
    const current = client;
    if (!current || closed) return;
    let timer: NodeJS.Timeout | undefined;
    const silent = new Promise<false>(
      (resolve) => (timer = setTimeout(resolve, heartbeatMs, false)),
    );
    const answered = await Promise.race([current.query('SELECT 1').then(() => true), silent])
      .catch(() => false)
      .finally(() => clearTimeout(timer));
    if (answered) aliveAtMs = Date.now();
    else if (client === current && !closed) {
      log.warn({ silent_ms: Date.now() - aliveAtMs }, 'job notifications: connection silent');
      retry(current, aliveAtMs);
    }
  };
  const heartbeat = setInterval(() => void beat(), heartbeatMs);
  heartbeat.unref();

  void connect(false);
  return {
    async close() {
      closed = true;
      clearInterval(heartbeat);
      clearTimeout(reconnectTimer);
      clearTimeout(batchTimer);
      const current = client;
      client = undefined;
      if (current) {
        current.removeAllListeners('end');
        await current.end().catch(() => {});
      }
    },
  };
}
