// Number formatting shared by the report and the verdicts.
export const MB = 1024 * 1024;
export const f1 = (n: number | null | undefined) =>
  n === null || n === undefined || !Number.isFinite(n) ? 'n/a' : n.toFixed(1);
export const f2 = (n: number | null | undefined) =>
  n === null || n === undefined || !Number.isFinite(n) ? 'n/a' : n.toFixed(2);
export const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);
export const perReplica = (r: Record<string, number>, fmt: (n: number) => string) =>
  Object.values(r).map(fmt).join(' / ') || 'n/a';
export const ratio = (a: number | null | undefined, b: number | null | undefined) =>
  a === null ||
  a === undefined ||
  b === null ||
  b === undefined ||
  !Number.isFinite(a) ||
  !Number.isFinite(b) ||
  b === 0
    ? 'n/a'
    : `${Math.abs(a / b) < 0.1 ? (a / b).toPrecision(2) : (a / b).toFixed(2)}×`;
