// The job page's charts: run duration and failures per day over the last 30 days, from
// GET /v1/runs, drawn by uPlot (a small maintained chart library; canvas, no inline styles).
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { api, type Page, type RunListItem } from '../api';

const DAYS = 30;
const DAY_MS = 86_400_000;
/** At most this many runs are read for the charts (10 pages of 100). */
const MAX_PAGES = 10;

export interface DailyRuns {
  /** Start of each UTC day, in seconds (uPlot's x axis). */
  days: number[];
  /** Mean duration of the day's finished runs in seconds (null: none). */
  meanSeconds: (number | null)[];
  failures: number[];
}

/** Groups runs by the UTC day of their occurrence, the last `DAYS` days up to `nowMs`. */
export function groupByDay(runs: readonly RunListItem[], nowMs: number): DailyRuns {
  const firstDayMs = Math.floor(nowMs / DAY_MS) * DAY_MS - (DAYS - 1) * DAY_MS;
  const totals = Array.from({ length: DAYS }, () => ({ ms: 0, finished: 0, failures: 0 }));
  for (const run of runs) {
    const index = Math.floor((new Date(run.scheduled_at).getTime() - firstDayMs) / DAY_MS);
    const day = totals[index];
    if (!day) continue;
    if (run.status === 'failed') day.failures += 1;
    if (run.duration_ms !== null) {
      day.ms += run.duration_ms;
      day.finished += 1;
    }
  }
  return {
    days: totals.map((_, i) => (firstDayMs + i * DAY_MS) / 1000),
    meanSeconds: totals.map((d) => (d.finished > 0 ? d.ms / d.finished / 1000 : null)),
    failures: totals.map((d) => d.failures),
  };
}

async function loadRuns(jobId: string, fromMs: number): Promise<RunListItem[]> {
  const runs: RunListItem[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const query = new URLSearchParams({
      job_id: jobId,
      from: new Date(fromMs).toISOString(),
      limit: '100',
    });
    if (cursor) query.set('cursor', cursor);
    const result: Page<RunListItem> = await api<Page<RunListItem>>('GET', `/v1/runs?${query}`);
    runs.push(...result.data);
    cursor = result.next_cursor;
    if (!cursor) break;
  }
  return runs;
}

function Chart(props: { title: string; data: uPlot.AlignedData; label: string; bars?: boolean }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const style = getComputedStyle(document.documentElement);
    const stroke = style.getPropertyValue('--accent').trim() || '#2563eb';
    const plot = new uPlot(
      {
        width: Math.max(280, element.clientWidth),
        height: 180,
        series: [
          {},
          {
            label: props.label,
            stroke,
            width: 2,
            ...(props.bars
              ? {
                  paths: uPlot.paths.bars?.({ size: [0.6, 40] }),
                  fill: stroke,
                  points: { show: false },
                }
              : { spanGaps: true }),
          },
        ],
        axes: [{}, { label: props.label, size: 60 }],
        legend: { show: false },
      },
      props.data,
      element,
    );
    return () => plot.destroy();
  }, [props.data]);
  return (
    <figure class="chart">
      <figcaption>{props.title}</figcaption>
      <div ref={box} role="img" aria-label={props.title} />
    </figure>
  );
}

/** Duration and failures per day over the last 30 days. */
export function RunCharts({ jobId, refreshKey }: { jobId: string; refreshKey: unknown }) {
  const [daily, setDaily] = useState<DailyRuns | null>(null);
  useEffect(() => {
    const nowMs = Date.now();
    loadRuns(jobId, nowMs - DAYS * DAY_MS)
      .then((runs) => setDaily(groupByDay(runs, nowMs)))
      .catch(() => setDaily(null));
  }, [jobId, refreshKey]);
  if (!daily) return null;
  const failuresTotal = daily.failures.reduce((a, b) => a + b, 0);
  return (
    <div class="grid-2 charts">
      <Chart
        title="Mean run duration per day (last 30 days)"
        label="seconds"
        data={[daily.days, daily.meanSeconds]}
      />
      <Chart
        title={`Failed runs per day (last 30 days: ${failuresTotal})`}
        label="failures"
        bars
        data={[daily.days, daily.failures]}
      />
    </div>
  );
}
