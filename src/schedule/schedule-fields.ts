// Validates the fields of a cron expression element by element, so a bad schedule is reported with
// the field and element at fault rather than croner's generic pattern error.

type FieldSpec = {
  name: string;
  min: number;
  max: number;
  maxStep: number;
  /** Names numbered from `min`: JAN is 1, SUN is 0. */
  names?: readonly string[];
  /** Whole-element forms beyond numbers/ranges/steps; group 1 is the value to range-check. */
  special?: RegExp;
};
const field = (name: string, min: number, max: number, extras: Partial<FieldSpec> = {}) => ({
  ...{ name, min, max, maxStep: max - min + 1 },
  ...extras,
});
const SECOND = field('second', 0, 59);
const MINUTE = field('minute', 0, 59);
const HOUR = field('hour', 0, 23);
const DAY_OF_MONTH = field('day-of-month', 1, 31, { special: /^(?:\?|L|LW|(\d+)W)$/ });
const MONTH = field('month', 1, 12, {
  names: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'],
});
const DAY_OF_WEEK = field('day-of-week', 0, 7, {
  names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'],
  maxStep: 7,
  special: /^(?:\?|([A-Z0-9]+)(?:L|#[1-5L]))$/,
});
const FIVE_FIELDS = [MINUTE, HOUR, DAY_OF_MONTH, MONTH, DAY_OF_WEEK];

/** The first problem in 5 fields, or 6 with seconds first, as a readable message; null if none. */
export function cronFieldsError(fields: readonly string[]): string | null {
  const specs = fields.length === 6 ? [SECOND, ...FIVE_FIELDS] : FIVE_FIELDS;
  const error = fields
    .flatMap((text, i) => text.split(',').map((el) => checkElement(specs[i] as FieldSpec, el)))
    .find((message) => message !== null);
  return error ?? null;
}

/** A value as it appears in a schedule message: JSON-quoted and cut to a readable length. */
export function quote(value: unknown): string {
  const text = JSON.stringify(String(value));
  return text.length > 60 ? `${text.slice(0, 56)}…"` : text;
}

function checkElement(spec: FieldSpec, element: string): string | null {
  const label = `${spec.name} field ${quote(element)}`;
  const upper = element.toUpperCase();
  const special = spec.special?.exec(upper);
  if (special) return special[1] === undefined ? null : checkValues(spec, label, [special[1]]);
  const [range = '', step, extra] = upper.split('/');
  if (extra !== undefined || (step !== undefined && !/^\d+$/.test(step))) {
    return `${label} has an invalid step`;
  }
  if (step !== undefined && (Number(step) < 1 || Number(step) > spec.maxStep)) {
    return `${label}: step must be between 1 and ${spec.maxStep}`;
  }
  if (range === '*') return null;
  const bounds = range.split('-');
  if (bounds.length > 2) return `${label} has an invalid range`;
  if (step !== undefined && bounds.length === 1) {
    return `${label}: a step needs * or a range before it, e.g. */${step} or ${range}-${spec.max}/${step}`;
  }
  return checkValues(spec, label, bounds);
}

function checkValues(spec: FieldSpec, label: string, tokens: string[]): string | null {
  const values = tokens.map((token, i) => valueOf(spec, token, i === 1));
  for (const [i, value] of values.entries()) {
    if (Number.isNaN(value)) return `${label} has an invalid value ${quote(tokens[i] ?? '')}`;
    if (value < spec.min || value > spec.max) {
      return `${label} is out of range ${spec.min}-${spec.max}`;
    }
  }
  const [low = 0, high = low] = values;
  return low > high ? `${label}: the range start is after its end` : null;
}

function valueOf(spec: FieldSpec, token: string, rangeEnd: boolean): number {
  if (/^\d+$/.test(token)) return Number(token);
  const index = spec.names?.indexOf(token) ?? -1;
  if (index < 0) return NaN;
  // As in croner, SUN ending a range means 7, so MON-SUN covers the whole week.
  return spec === DAY_OF_WEEK && rangeEnd && index === 0 ? 7 : index + spec.min;
}
