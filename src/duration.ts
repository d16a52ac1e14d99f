// Go-style durations ("300ms", "30s", "5m", "1h30m", "1.5h"), the syntax the guide's settings use.
const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;

/** Parses a Go duration into milliseconds; returns null when the text is not one. */
export function parseDurationMs(text: string): number | null {
  const input = text.trim();
  if (input === '0') return 0;
  if (input === '') return null;
  let totalMs = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < input.length) {
    const start = PART.lastIndex;
    const match = PART.exec(input);
    if (!match || match.index !== start) return null;
    totalMs += Number(match[1]) * (UNIT_MS[match[2] as string] as number);
  }
  return Number.isFinite(totalMs) ? Math.round(totalMs) : null;
}

/** Formats milliseconds the way Go's time.Duration.String() does ("30s", "5m0s", "1h30m0s"). */
export function formatDurationMs(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(ms);
  if (rest < 1000) return `${sign}${rest}ms`;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = trimZeros((rest / 1000).toFixed(3));
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

function trimZeros(decimal: string): string {
  return decimal.includes('.') ? decimal.replace(/\.?0+$/, '') : decimal;
}
