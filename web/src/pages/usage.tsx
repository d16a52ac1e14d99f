import { useState } from 'preact/hooks';
import { api, messageOf, type UsageBudget, type UsageReport } from '../api';
import { Alert, usePoll } from '../components/ui';
import { formatMicros } from '../format';

type Row = UsageReport['data'][number];

// The page's bars are SVG (widths as attributes): the dashboard's CSP allows no inline styles.
const SERIES = 6;

/** This month's usage: the budget and what is left, cost per day stacked by job, top jobs, models. */
export function UsagePage() {
  const [byDay, setByDay] = useState<Row[] | null>(null);
  const [byModel, setByModel] = useState<Row[] | null>(null);
  const [budget, setBudget] = useState<UsageBudget | null>(null);
  const [error, setError] = useState<string | null>(null);
  usePoll(
    async () => {
      try {
        const [days, models, limits] = await Promise.all([
          api<UsageReport>('GET', '/v1/usage?group_by=day,job'),
          api<UsageReport>('GET', '/v1/usage?group_by=model'),
          api<UsageBudget>('GET', '/v1/usage/budget'),
        ]);
        setByDay(days.data);
        setByModel(models.data);
        setBudget(limits);
        setError(null);
      } catch (err) {
        setError(messageOf(err));
      }
    },
    15_000,
    [],
  );
  const jobs = topJobs(byDay ?? []);
  return (
    <section>
      <h1>Usage</h1>
      <p class="muted">This calendar month (UTC), from the usage ledger: every model call.</p>
      <Alert message={error} />
      {budget ? <Budget budget={budget} /> : null}
      {byDay ? (
        <>
          <h2>Cost per day, by job</h2>
          <DayChart rows={byDay} jobs={jobs.map((job) => job.key)} />
          <Legend jobs={jobs} />
          <h2>Top jobs</h2>
          <Bars
            label="Top jobs"
            items={jobs.map((job) => ({
              name: job.name,
              micros: job.micros,
              note: `${job.calls} calls`,
            }))}
          />
        </>
      ) : null}
      {byModel ? (
        <>
          <h2>By model</h2>
          <Bars
            label="By model"
            items={byModel.map((row) => ({
              name: row.model ?? '',
              micros: row.cost_micros,
              note: `${row.prompt_tokens + row.completion_tokens} tokens${row.unpriced_calls > 0 ? `, ${row.unpriced_calls} calls without a price` : ''}`,
            }))}
          />
        </>
      ) : null}
    </section>
  );
}

function Budget({ budget }: { budget: UsageBudget }) {
  const money = budget.month_micros;
  const tokens = budget.month_tokens;
  const resets = new Date(money.resets_at).toISOString().slice(0, 16).replace('T', ' ');
  return (
    <ul class="stats" data-testid="usage-budget">
      <li class="stat card">
        <span class="stat-label">Spent this month</span>
        <span class="stat-value">{formatMicros(money.spent)}</span>
      </li>
      <li class="stat card">
        <span class="stat-label">Monthly budget</span>
        <span class="stat-value">{money.limit === null ? 'none' : formatMicros(money.limit)}</span>
      </li>
      <li class={`stat card${money.remaining === 0 ? ' stat-bad' : ''}`}>
        <span class="stat-label">Left</span>
        <span class="stat-value">
          {money.remaining === null ? '—' : formatMicros(money.remaining)}
        </span>
      </li>
      {tokens.limit !== null ? (
        <li class="stat card">
          <span class="stat-label">Tokens left</span>
          <span class="stat-value">{String(tokens.remaining)}</span>
        </li>
      ) : null}
      <li class="stat card">
        <span class="stat-label">Resets (UTC)</span>
        <span class="stat-value">{resets}</span>
      </li>
    </ul>
  );
}

interface JobTotal {
  key: string;
  name: string;
  micros: number;
  calls: number;
}

/** Jobs by cost, the chat as one entry; beyond the palette, the rest as "other jobs". */
function topJobs(rows: Row[]): JobTotal[] {
  const totals = new Map<string, JobTotal>();
  for (const row of rows) {
    const key = row.job_id ?? 'chat';
    const name = row.job_id ? (row.job_name ?? 'deleted job') : 'chat';
    const total = totals.get(key) ?? { key, name, micros: 0, calls: 0 };
    total.micros += row.cost_micros;
    total.calls += row.calls;
    totals.set(key, total);
  }
  return [...totals.values()].sort((a, b) => b.micros - a.micros);
}

function DayChart({ rows, jobs }: { rows: Row[]; jobs: string[] }) {
  const days = [...new Set(rows.map((row) => row.day ?? ''))].sort();
  if (days.length === 0) return <p class="muted">No model calls this month yet.</p>;
  const perDay = days.map((day) => rows.filter((row) => row.day === day));
  const max = Math.max(1, ...perDay.map((list) => list.reduce((s, r) => s + r.cost_micros, 0)));
  const barWidth = 24;
  const height = 160;
  const width = days.length * (barWidth + 8);
  const seriesOf = (row: Row) => Math.min(SERIES - 1, jobs.indexOf(row.job_id ?? 'chat'));
  return (
    <svg
      class="usage-chart"
      role="img"
      aria-label={`Cost per day over ${days.length} days`}
      width={width}
      height={height + 18}
      viewBox={`0 0 ${width} ${height + 18}`}
    >
      {perDay.map((list, i) => {
        let y = height;
        const x = i * (barWidth + 8);
        return (
          <g key={days[i]}>
            {list.map((row) => {
              const h = (row.cost_micros / max) * height;
              y -= h;
              return (
                <rect
                  key={row.job_id ?? 'chat'}
                  class={`series-${seriesOf(row)}`}
                  x={x}
                  y={y}
                  width={barWidth}
                  height={h}
                >
                  <title>{`${days[i]} ${row.job_name ?? 'chat'}: ${formatMicros(row.cost_micros)}`}</title>
                </rect>
              );
            })}
            <text class="usage-axis" x={x + barWidth / 2} y={height + 14}>
              {(days[i] ?? '').slice(8)}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

function Legend({ jobs }: { jobs: JobTotal[] }) {
  return (
    <ul class="usage-legend">
      {jobs.slice(0, SERIES).map((job, i) => (
        <li key={job.key}>
          <svg width="10" height="10" aria-hidden="true">
            <rect class={`series-${i}`} width="10" height="10" />
          </svg>{' '}
          {i === SERIES - 1 && jobs.length > SERIES ? 'other jobs' : job.name}
        </li>
      ))}
    </ul>
  );
}

function Bars({
  label,
  items,
}: {
  label: string;
  items: { name: string; micros: number; note: string }[];
}) {
  if (items.length === 0) return <p class="muted">Nothing yet.</p>;
  const max = Math.max(1, ...items.map((item) => item.micros));
  return (
    <table class="usage-bars">
      <caption class="sr-only">{label}</caption>
      <tbody>
        {items.slice(0, 10).map((item) => (
          <tr key={item.name}>
            <th scope="row">{item.name}</th>
            <td>
              <svg width="200" height="12" aria-hidden="true">
                <rect class="series-0" width={(item.micros / max) * 200} height="12" />
              </svg>
            </td>
            <td>{formatMicros(item.micros)}</td>
            <td class="muted">{item.note}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
