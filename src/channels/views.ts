// How the API shows a channel and its deliveries. A webhook URL is a credential (whoever has it
// may post), so after creation only its start is shown (a sealed one's start is stored beside it:
// the API never opens it); secret references are shown as typed.
import type { ChannelDeliveryRow, ChannelRow } from './channel-store.js';
import type { ChannelKind } from './kinds.js';

export interface ChannelView {
  id: string;
  kind: ChannelKind;
  name: string;
  config: Record<string, unknown>;
  enabled: boolean;
  disabled_reason: 'failing' | null;
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

export function toChannelView(row: ChannelRow): ChannelView {
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    config: shownConfig(row.config),
    enabled: row.enabled,
    disabled_reason: row.disabled_reason,
    failing_since: row.failing_since?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

function shownConfig(config: Record<string, unknown>): Record<string, unknown> {
  const { url_sealed: sealed, url_shown: shown, ...rest } = config;
  if (typeof sealed === 'string') return { ...rest, url: shown };
  if (typeof config.url !== 'string') return config;
  return { ...config, url: maskUrl(config.url) };
}

/** https://hooks.slack.com/services/T0123/… : the host and the path's first 12 characters. */
export function maskUrl(text: string): string {
  try {
    const url = new URL(text);
    const path = url.pathname.length > 12 ? `${url.pathname.slice(0, 12)}…` : url.pathname;
    return `${url.origin}${path}`;
  } catch {
    return '…';
  }
}

export interface ChannelDeliveryView {
  id: string;
  channel_id: string;
  job_id: string | null;
  run_id: string | null;
  run_status: 'success' | 'failed' | null;
  reason: DeliveryReason;
  status: 'pending' | 'delivered' | 'failed' | 'cancelled';
  attempts: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  last_response: string | null;
  created_at: string;
  delivered_at: string | null;
  history: {
    attempt: number;
    attempted_at: string;
    duration_ms: number;
    status_code: number | null;
    error: string | null;
    outcome: 'delivered' | 'retry' | 'failed' | 'refused';
  }[];
}

export type DeliveryReason =
  'always' | 'failed' | 'recovered' | 'changed' | 'agent' | 'failures' | 'system_paused';

export function toChannelDeliveryView(row: ChannelDeliveryRow): ChannelDeliveryView {
  return {
    id: row.id,
    channel_id: row.channel_id,
    job_id: row.cron_job_id,
    run_id: row.run_id,
    run_status: row.run_status as ChannelDeliveryView['run_status'],
    reason: row.reason as DeliveryReason,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at.toISOString() : null,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    last_response: row.last_response,
    created_at: row.created_at.toISOString(),
    delivered_at: row.delivered_at?.toISOString() ?? null,
    history: row.history.map((entry) => ({
      ...entry,
      outcome: entry.outcome as ChannelDeliveryView['history'][number]['outcome'],
      attempted_at: new Date(entry.attempted_at).toISOString(),
    })),
  };
}
