// A small SVG chart: the distribution (CDF) of fire lag, one panel per workload, one line per system.

export interface Curve {
  label: string;
  color: string;
  /** Sorted lags in ms. */
  lags: number[];
}

export interface Panel {
  title: string;
  curves: Curve[];
}

const W = 440;
const H = 300;
const M = { left: 52, right: 16, top: 30, bottom: 44 };
const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** x: lag on a log scale (1 ms .. the largest lag), y: share of occurrences started by then. */
function panel(p: Panel, offsetX: number): string {
  const all = p.curves.flatMap((c) => c.lags);
  const maxLag = Math.max(10, ...all.filter(Number.isFinite));
  const decades = Math.ceil(Math.log10(maxLag));
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  const x = (ms: number) => M.left + (Math.log10(Math.max(1, ms)) / decades) * plotW;
  const y = (share: number) => M.top + (1 - share) * plotH;
  const parts: string[] = [`<g transform="translate(${offsetX},0)">`];
  parts.push(
    `<text x="${W / 2}" y="18" text-anchor="middle" font-weight="bold">${escape(p.title)}</text>`,
  );
  for (let d = 0; d <= decades; d++) {
    const ms = 10 ** d;
    parts.push(
      `<line x1="${x(ms)}" y1="${M.top}" x2="${x(ms)}" y2="${M.top + plotH}" stroke="#ddd"/>`,
      `<text x="${x(ms)}" y="${M.top + plotH + 16}" text-anchor="middle">${ms >= 1000 ? `${ms / 1000}s` : `${ms}ms`}</text>`,
    );
  }
  for (const share of [0, 0.5, 0.9, 0.99, 1]) {
    parts.push(
      `<line x1="${M.left}" y1="${y(share)}" x2="${M.left + plotW}" y2="${y(share)}" stroke="#eee"/>`,
      `<text x="${M.left - 6}" y="${y(share) + 4}" text-anchor="end">${share * 100}%</text>`,
    );
  }
  parts.push(
    `<text x="${M.left + plotW / 2}" y="${H - 8}" text-anchor="middle">fire lag (started − nominal), log scale</text>`,
    `<rect x="${M.left}" y="${M.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#999"/>`,
  );
  p.curves.forEach((curve, i) => {
    const n = curve.lags.length;
    if (n > 0) {
      const step = Math.max(1, Math.floor(n / 400));
      const points: string[] = [];
      for (let k = 0; k < n; k += step)
        points.push(`${x(curve.lags[k] as number).toFixed(1)},${y((k + 1) / n).toFixed(1)}`);
      points.push(`${x(curve.lags[n - 1] as number).toFixed(1)},${y(1).toFixed(1)}`);
      parts.push(
        `<polyline fill="none" stroke="${curve.color}" stroke-width="2" points="${points.join(' ')}"/>`,
      );
    }
    const ly = M.top + plotH - 30 + i * 16;
    parts.push(
      `<line x1="${M.left + plotW - 120}" y1="${ly}" x2="${M.left + plotW - 100}" y2="${ly}" stroke="${curve.color}" stroke-width="2"/>`,
      `<text x="${M.left + plotW - 95}" y="${ly + 4}">${escape(curve.label)} (n=${n})</text>`,
    );
  });
  parts.push('</g>');
  return parts.join('\n');
}

export function lagChart(panels: Panel[]): string {
  const width = W * Math.max(1, panels.length);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${H}" viewBox="0 0 ${width} ${H}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${H}" fill="white"/>`,
    ...panels.map((p, i) => panel(p, i * W)),
    '</svg>',
    '',
  ].join('\n');
}
