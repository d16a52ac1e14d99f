import { useState } from 'preact/hooks';
import { api, messageOf, type Cluster } from '../api';
import { Alert, usePoll } from '../components/ui';
import { formatDuration, relative } from '../format';

/** Operators: pods and run figures of the last hour, from GET /v1/cluster, every 5 s. */
export function ClusterPage() {
  const [cluster, setCluster] = useState<Cluster | null>(null);
  const [error, setError] = useState<string | null>(null);
  usePoll(
    async () => {
      try {
        setCluster(await api<Cluster>('GET', '/v1/cluster'));
        setError(null);
      } catch (err) {
        setError(messageOf(err));
      }
    },
    5000,
    [],
  );
  const totals = cluster?.totals;
  return (
    <section>
      <h1>Cluster</h1>
      <Alert message={error} />
      {cluster && cluster.redis === 'error' ? (
        <p class="warning" role="alert">
          Redis does not answer: pods cannot be listed and the scheduler is waiting.
        </p>
      ) : null}
      {totals ? (
        <>
          <ul class="stats">
            <Stat label="Live pods" value={String(totals.live_pods)} />
            <Stat label="Runs in flight" value={String(totals.runs_in_flight)} />
            <Stat label="Runs, last hour" value={String(totals.runs_last_hour)} />
            <Stat
              label="Failures, last hour"
              value={String(totals.failures_last_hour)}
              tone={totals.failures_last_hour > 0 ? 'bad' : undefined}
            />
            <Stat label="Fire lag p99, last hour" value={formatDuration(totals.fire_lag_p99_ms)} />
          </ul>
          <h2>Pods</h2>
          <div class="table-wrap">
            <table class="stack">
              <caption class="sr-only">Pods</caption>
              <thead>
                <tr>
                  <th scope="col">Pod</th>
                  <th scope="col">State</th>
                  <th scope="col">Heartbeat</th>
                  <th scope="col">In flight</th>
                  <th scope="col">Runs (1 h)</th>
                  <th scope="col">Failures (1 h)</th>
                  <th scope="col">Fire lag p99</th>
                  <th scope="col">Last run</th>
                </tr>
              </thead>
              <tbody>
                {cluster!.pods.map((pod) => (
                  <tr key={pod.pod_id}>
                    <td data-label="Pod">
                      <code>{pod.pod_id}</code>
                    </td>
                    <td data-label="State">
                      <span class={`badge badge-${pod.state}`}>{pod.state}</span>
                    </td>
                    <td data-label="Heartbeat">
                      {pod.heartbeat_at ? relative(pod.heartbeat_at) : '—'}
                    </td>
                    <td data-label="In flight">{pod.runs_in_flight}</td>
                    <td data-label="Runs (1 h)">{pod.runs_last_hour}</td>
                    <td data-label="Failures (1 h)">{pod.failures_last_hour}</td>
                    <td data-label="Fire lag p99">{formatDuration(pod.fire_lag_p99_ms)}</td>
                    <td data-label="Last run">
                      {pod.last_run_started_at ? relative(pod.last_run_started_at) : '—'}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p class="muted small">
            scheduling: taking its share of jobs · live: heartbeat, not scheduling · gone: in the
            last hour's runs, no heartbeat. Pods of this installation only (its peers registry and
            runs). Updated {relative(cluster!.generated_at)}, every 5 s.
          </p>
        </>
      ) : error ? null : (
        <p class="muted">Loading…</p>
      )}
    </section>
  );
}

function Stat(props: { label: string; value: string; tone?: 'bad' | undefined }) {
  return (
    <li class={`stat card${props.tone ? ` stat-${props.tone}` : ''}`}>
      <span class="stat-label">{props.label}</span>
      <span class="stat-value">{props.value}</span>
    </li>
  );
}
