import { useState } from 'preact/hooks';
import type { components } from '../api.gen';
import { browserZone, formatInstant } from '../format';
import { usePoll } from './ui';

// The model server's status as every tenant may read it (GET /health/model is public): when it
// does not answer, the tenant's runs fail for a reason that is not theirs, and they should see so.

type ModelHealth = components['schemas']['ModelHealth'];

const POLL_MS = 30_000;

/** GET /health/model: 200 when it answers, 503 (same body) when not; null if we cannot tell. */
async function readModelHealth(): Promise<ModelHealth | null> {
  try {
    const response = await fetch('/health/model', {
      headers: { accept: 'application/json' },
      credentials: 'omit',
      cache: 'no-store',
    });
    if (response.status !== 200 && response.status !== 503) return null;
    return (await response.json()) as ModelHealth;
  } catch {
    // The service itself does not answer: the page says so with its own error.
    return null;
  }
}

/** A banner while the model server does not answer; nothing otherwise. */
export function ModelBanner() {
  const [health, setHealth] = useState<ModelHealth | null>(null);
  usePoll(
    async () => {
      setHealth(await readModelHealth());
    },
    POLL_MS,
    [],
  );
  if (!health || health.status !== 'unreachable') return null;
  return (
    <div class="warning model-banner" role="status">
      <p>
        <span aria-hidden="true">⚠ </span>
        <strong>The model server is not answering</strong>
        {health.error ? ` (${health.error})` : ''}, checked{' '}
        {formatInstant(health.checked_at, browserZone)}. Runs fail with{' '}
        <code>model_unreachable</code> until it answers again; your jobs need no change.
      </p>
      <p class="small">
        The service’s operator runs it; what to check is in the model server section of the docs,{' '}
        <code>docs/operations.md</code> (“Model server”). Its status:{' '}
        <a href="/health/model">/health/model</a>.
      </p>
    </div>
  );
}
