// Budget periods, in UTC: a tenant's calendar month, a job's calendar day. Pure: time is an
// argument.

export type PeriodKind = 'month' | 'day';

export interface Period {
  /** 2026-12 or 2026-12-04: part of the budget's Redis key. */
  label: string;
  startsAt: Date;
  /** When the next period starts: a refused call names it as the reset time. */
  resetsAt: Date;
}

export function periodOf(kind: PeriodKind, now: Date): Period {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  if (kind === 'month') {
    return {
      label: `${y}-${pad(m + 1)}`,
      startsAt: new Date(Date.UTC(y, m, 1)),
      resetsAt: new Date(Date.UTC(y, m + 1, 1)),
    };
  }
  const d = now.getUTCDate();
  return {
    label: `${y}-${pad(m + 1)}-${pad(d)}`,
    startsAt: new Date(Date.UTC(y, m, d)),
    resetsAt: new Date(Date.UTC(y, m, d + 1)),
  };
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
