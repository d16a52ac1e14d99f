import { useEffect, useState } from 'preact/hooks';
import { api, type Page } from '../api';
import { NOTIFY_WHEN, type Channel, type NotifyWhen } from '../channels-api';

export interface NotifyRule {
  channel: string;
  when: NotifyWhen;
  template?: string | null;
}

const WHEN_WORDS: Record<NotifyWhen, string> = {
  always: 'every run',
  failed: 'a failed run',
  recovered: 'the first success after failures',
  changed: 'the answer changed',
  agent: 'the agent decides',
};

/** The job form's notify rules: null follows the tenant's defaults; a list is the job's own. */
export function NotifyRulesEditor(props: {
  rules: NotifyRule[] | null;
  onChange: (rules: NotifyRule[] | null) => void;
}) {
  const [channels, setChannels] = useState<Channel[]>([]);
  useEffect(() => {
    api<Page<Channel>>('GET', '/v1/channels?limit=100')
      .then((page) => setChannels(page.data))
      .catch(() => setChannels([]));
  }, []);
  const { rules, onChange } = props;
  const set = (index: number, rule: NotifyRule) =>
    onChange((rules ?? []).map((r, i) => (i === index ? rule : r)));
  return (
    <fieldset class="notify-rules">
      <legend>Notify</legend>
      <label class="check">
        <input
          type="checkbox"
          checked={rules === null}
          onChange={(e) => onChange(e.currentTarget.checked ? null : [])}
        />
        Follow the tenant's default rules
      </label>
      {rules === null ? null : channels.length === 0 ? (
        <p class="muted small">
          No channels yet: add one on the <a href="/channels">Channels</a> page.
        </p>
      ) : (
        <>
          {rules.length === 0 ? <p class="muted small">No message for this job.</p> : null}
          {rules.map((rule, index) => (
            <div class="row-2" key={index}>
              <select
                aria-label={`Rule ${index + 1}: channel`}
                value={rule.channel}
                onChange={(e) => set(index, { ...rule, channel: e.currentTarget.value })}
              >
                {channels.map((channel) => (
                  <option key={channel.id} value={channel.id}>
                    {channel.name} ({channel.kind})
                  </option>
                ))}
              </select>
              <select
                aria-label={`Rule ${index + 1}: when`}
                value={rule.when}
                onChange={(e) => set(index, { ...rule, when: e.currentTarget.value as NotifyWhen })}
              >
                {NOTIFY_WHEN.map((when) => (
                  <option key={when} value={when}>
                    {WHEN_WORDS[when]}
                  </option>
                ))}
              </select>
              <button type="button" onClick={() => onChange(rules.filter((_, i) => i !== index))}>
                Remove
              </button>
            </div>
          ))}
          {rules.length < 10 ? (
            <button
              type="button"
              onClick={() => onChange([...rules, { channel: channels[0]!.id, when: 'failed' }])}
            >
              Add a rule
            </button>
          ) : null}
        </>
      )}
    </fieldset>
  );
}
