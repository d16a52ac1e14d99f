import { useEffect, useState } from 'preact/hooks';
import { api, messageOf, type Page } from '../api';
import {
  CHANNEL_KINDS,
  configOf,
  targetOf,
  type Channel,
  type ChannelKind,
  type ChannelTestResult,
} from '../channels-api';
import { Alert, ConfirmButton, Field, ReadOnlyNote } from '../components/ui';
import { canNow } from '../session';
import { browserZone, formatInZone } from '../format';
import { ChannelDeliveriesTable } from './channel-deliveries';

const KIND_LABELS: Record<ChannelKind, string> = {
  slack: 'Slack',
  discord: 'Discord',
  teams: 'Microsoft Teams',
  telegram: 'Telegram',
  email: 'Email',
};

/** Tenants: notification channels (add, test, pause, delete, recent messages). */
export function ChannelsPage() {
  const [channels, setChannels] = useState<Channel[] | null>(null);
  const [kind, setKind] = useState<ChannelKind>('slack');
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [botToken, setBotToken] = useState('{{secrets.TELEGRAM_TOKEN}}');
  const [chatId, setChatId] = useState('');
  const [to, setTo] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [tested, setTested] = useState<Record<string, ChannelTestResult>>({});
  const [open, setOpen] = useState<string | null>(null);

  const load = async () => {
    try {
      setChannels((await api<Page<Channel>>('GET', '/v1/channels?limit=100')).data);
    } catch (err) {
      setError(messageOf(err));
    }
  };
  useEffect(() => void load(), []);

  const create = async (event: Event) => {
    event.preventDefault();
    setFormError(null);
    try {
      const config = configOf(kind, { url, botToken, chatId, to });
      await api<Channel>('POST', '/v1/channels', { kind, name, config });
      setName('');
      setUrl('');
      await load();
    } catch (err) {
      setFormError(messageOf(err));
    }
  };
  const act = async (fn: () => Promise<unknown>) => {
    try {
      await fn();
      await load();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  const path = (c: Channel) => `/v1/channels/${encodeURIComponent(c.id)}`;
  const test = (c: Channel) =>
    act(async () => {
      const result = await api<ChannelTestResult>('POST', `${path(c)}/test`);
      setTested((all) => ({ ...all, [c.id]: result }));
    });

  const writable = canNow('integrations:write');
  return (
    <section>
      <h1>Channels</h1>
      <p class="muted">
        Where people are told about runs: a job's notify rules (on its form) or the tenant's
        defaults name these channels. See docs/channels.md.
      </p>
      <Alert message={error} />
      <ReadOnlyNote scope="integrations:write">
        You can look at the channels and their messages, not change them.
      </ReadOnlyNote>
      {writable ? (
        <form class="card narrow" onSubmit={(e) => void create(e)} noValidate>
          <h2>New channel</h2>
          <Alert message={formError} />
          <div class="row-2">
            <Field id="channel-kind" label="Kind">
              <select
                id="channel-kind"
                value={kind}
                onChange={(e) => setKind(e.currentTarget.value as ChannelKind)}
              >
                {CHANNEL_KINDS.map((k) => (
                  <option key={k} value={k}>
                    {KIND_LABELS[k]}
                  </option>
                ))}
              </select>
            </Field>
            <Field id="channel-name" label="Name">
              <input
                id="channel-name"
                value={name}
                placeholder="ops alerts"
                onInput={(e) => setName(e.currentTarget.value)}
              />
            </Field>
          </div>
          {kind === 'telegram' ? (
            <div class="row-2">
              <Field id="channel-token" label="Bot token (a secret reference)">
                <input
                  id="channel-token"
                  value={botToken}
                  onInput={(e) => setBotToken(e.currentTarget.value)}
                />
              </Field>
              <Field id="channel-chat" label="Chat id">
                <input
                  id="channel-chat"
                  value={chatId}
                  placeholder="-1001234567890"
                  onInput={(e) => setChatId(e.currentTarget.value)}
                />
              </Field>
            </div>
          ) : kind === 'email' ? (
            <Field id="channel-to" label="Recipients (the server's SMTP)">
              <input
                id="channel-to"
                value={to}
                placeholder="oncall@example.com, lead@example.com"
                onInput={(e) => setTo(e.currentTarget.value)}
              />
            </Field>
          ) : (
            <Field id="channel-url" label="Webhook URL">
              <input
                id="channel-url"
                type="url"
                value={url}
                placeholder="https://hooks.slack.com/services/…"
                onInput={(e) => setUrl(e.currentTarget.value)}
              />
            </Field>
          )}
          <button type="submit" class="primary">
            Add
          </button>
        </form>
      ) : null}
      {channels !== null && channels.length === 0 ? <p class="muted">No channels yet.</p> : null}
      {(channels ?? []).map((channel) => {
        const result = tested[channel.id];
        return (
          <article class="card" key={channel.id}>
            <h2 class="small">
              {KIND_LABELS[channel.kind]} · {channel.name}
            </h2>
            <p>
              <code>{targetOf(channel)}</code> ·{' '}
              <strong>
                {channel.enabled
                  ? 'enabled'
                  : channel.disabled_reason === 'failing'
                    ? 'disabled: every message failed for CHANNEL_DISABLE_AFTER'
                    : 'paused'}
              </strong>
              {channel.failing_since
                ? ` · failing since ${formatInZone(channel.failing_since, browserZone)}`
                : ''}
            </p>
            {result ? (
              <Alert
                tone={result.delivered ? 'ok' : 'error'}
                message={`Test ${result.delivered ? 'delivered' : result.outcome}${
                  result.status_code !== null ? ` (${result.status_code})` : ''
                }: ${result.response ?? result.error ?? ''}`}
              />
            ) : null}
            <div class="actions">
              {writable ? (
                <>
                  <button type="button" onClick={() => void test(channel)}>
                    Send a test
                  </button>
                  <button
                    type="button"
                    onClick={() =>
                      void act(() => api('PATCH', path(channel), { enabled: !channel.enabled }))
                    }
                  >
                    {channel.enabled ? 'Pause' : 'Enable'}
                  </button>
                </>
              ) : null}
              <button
                type="button"
                aria-expanded={open === channel.id}
                onClick={() => setOpen(open === channel.id ? null : channel.id)}
              >
                Recent messages
              </button>
              {writable ? (
                <ConfirmButton
                  label="Delete"
                  danger
                  question={`Delete the channel ${channel.name} and its message history?`}
                  onConfirm={() => act(() => api('DELETE', path(channel)))}
                />
              ) : null}
            </div>
            {open === channel.id ? (
              <ChannelDeliveriesTable
                path={`${path(channel)}/deliveries`}
                empty="No messages yet."
              />
            ) : null}
          </article>
        );
      })}
    </section>
  );
}
