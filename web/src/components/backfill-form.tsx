// The job page's Backfill action: the occurrences of a past range that have no run yet are
// queued (POST /v1/cron-jobs/{id}/backfill), at most 100 a request.
import { useState } from 'preact/hooks';
import { api, messageOf } from '../api';
import { Alert } from './ui';

interface BackfillAnswer {
  added: number;
  skipped: number;
  next_from: string | null;
}

export function BackfillForm(props: { jobId: string; onDone: (message: string) => void }) {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    if (!from || !to) {
      setError('Give both ends of the range.');
      return;
    }
    try {
      const answer = await api<BackfillAnswer>(
        'POST',
        `/v1/cron-jobs/${encodeURIComponent(props.jobId)}/backfill`,
        { from: new Date(from).toISOString(), to: new Date(to).toISOString() },
      );
      const more = answer.next_from
        ? ` More occurrences follow: backfill again from ${new Date(answer.next_from).toLocaleString()}.`
        : '';
      props.onDone(
        `Backfill: ${answer.added} runs queued, ${answer.skipped} already had a run.${more}`,
      );
    } catch (err) {
      setError(messageOf(err));
    }
  };
  return (
    <details class="card backfill">
      <summary>Backfill</summary>
      <form onSubmit={(e) => void submit(e)}>
        <p class="muted small">
          Runs each occurrence in the range that has no run yet, once, oldest first (at most 100 at
          a time).
        </p>
        <Alert message={error} />
        <label for="backfill-from">From (your time)</label>
        <input
          id="backfill-from"
          type="datetime-local"
          value={from}
          onInput={(e) => setFrom(e.currentTarget.value)}
        />
        <label for="backfill-to">To (your time, not included)</label>
        <input
          id="backfill-to"
          type="datetime-local"
          value={to}
          onInput={(e) => setTo(e.currentTarget.value)}
        />
        <button type="submit">Backfill</button>
      </form>
    </details>
  );
}
