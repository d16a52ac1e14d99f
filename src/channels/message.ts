// What a channel message says (pure): from the data frozen with the delivery (channel_enqueue_run,
// channel_enqueue_alert), the job's template if it has one, and the dashboard link built from
// PUBLIC_URL. Every attempt of a delivery renders the same message. The answer was redacted of
// the tenant's secrets when the run was recorded, and a template is never given secret values:
// `{{secrets.X}}` in a template stays as typed.

/** The data of a delivery, as the SQL functions freeze it. */
export interface DeliveryPayload {
  subject: 'run' | 'job_paused' | 'test';
  reason: string;
  template?: string | null;
  job_id?: string | null;
  job_name?: string | null;
  run_id?: string | null;
  status?: string | null;
  answer?: string | null;
  error?: string | null;
  error_kind?: string | null;
  consecutive_failures?: number | null;
  scheduled_at?: string | null;
  finished_at?: string | null;
  paused_at?: string | null;
  paused_reason?: string | null;
  /** A `notify` tool call's message and severity (rule `agent`). */
  message?: string | null;
  severity?: string | null;
}

export type Severity = 'info' | 'warning' | 'critical';

export interface ChannelMessage {
  /** One line: the job and what happened. */
  title: string;
  /** Markdown. */
  body: string;
  /** The run's (or job's) dashboard page; null without PUBLIC_URL. */
  link: string | null;
  severity: Severity;
  /** When it happened (RFC 3339). */
  time: string;
}

/** The placeholders a template may use. */
export const TEMPLATE_PLACEHOLDERS = [
  'answer',
  'job_name',
  'time',
  'status',
  'link',
  'error',
  'reason',
  'severity',
] as const;

export function renderChannelMessage(
  payload: DeliveryPayload,
  publicUrl: string | undefined,
): ChannelMessage {
  const jobName = payload.job_name || 'a job';
  const link = linkOf(payload, publicUrl);
  const severity = severityOf(payload);
  const time = payload.finished_at ?? payload.paused_at ?? new Date(0).toISOString();
  const title = `${jobName}: ${headlineOf(payload)}`;
  const defaultBody = defaultBodyOf(payload);
  const body =
    payload.template && payload.template.trim() !== ''
      ? fillTemplate(payload.template, {
          answer: payload.message ?? payload.answer ?? '',
          job_name: jobName,
          time,
          status: payload.status ?? '',
          link: link ?? '',
          error: payload.error ?? '',
          reason: payload.reason,
          severity,
        })
      : defaultBody;
  return { title, body, link, severity, time };
}

function headlineOf(payload: DeliveryPayload): string {
  if (payload.subject === 'test') return 'test message';
  if (payload.subject === 'job_paused') return 'paused by the system';
  switch (payload.reason) {
    case 'failures':
      return `failed ${payload.consecutive_failures ?? 'several'} times in a row`;
    case 'recovered':
      return 'recovered';
    case 'changed':
      return 'the answer changed';
    case 'failed':
      return 'failed';
    default:
      return payload.status === 'failed' ? 'failed' : 'succeeded';
  }
}

function defaultBodyOf(payload: DeliveryPayload): string {
  if (payload.subject === 'test') {
    return 'This is a test message from HermesX: the channel works.';
  }
  if (payload.subject === 'job_paused') {
    return `The job was paused: ${payload.paused_reason ?? 'a limit was reached'}.`;
  }
  if (payload.message) return payload.message;
  if (payload.status === 'failed') {
    const kind = payload.error_kind ? `${payload.error_kind}: ` : '';
    return `${kind}${payload.error ?? 'the run failed'}`;
  }
  const answer = payload.answer ?? '';
  return answer.trim() === '' ? '(the run gave no answer)' : answer;
}

function severityOf(payload: DeliveryPayload): Severity {
  if (payload.severity === 'info' || payload.severity === 'warning') return payload.severity;
  if (payload.severity === 'critical') return 'critical';
  if (payload.subject === 'job_paused' || payload.reason === 'failures') return 'critical';
  return payload.status === 'failed' ? 'warning' : 'info';
}

function linkOf(payload: DeliveryPayload, publicUrl: string | undefined): string | null {
  if (publicUrl === undefined) return null;
  // The dashboard's run page (web/src/app.tsx): /jobs/<job>/runs/<run>.
  if (payload.run_id && payload.job_id) {
    return `${publicUrl}/jobs/${payload.job_id}/runs/${payload.run_id}`;
  }
  if (payload.job_id) return `${publicUrl}/jobs/${payload.job_id}`;
  return publicUrl;
}

/** {{name}} of the known placeholders are replaced; anything else is left as typed. */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{\s*([a-z_]+)\s*\}\}/g, (whole, name: string) =>
    Object.hasOwn(values, name) ? (values[name] ?? '') : whole,
  );
}
