// The one redaction function. Everything a run or a request stores, logs, returns to the model or
// delivers passes through a Redactor built from the tenant's secret values, which replaces every
// occurrence of a value (as is, URL-encoded and JSON-escaped) with `[REDACTED:NAME]`.
//
//   createRedactor([{name, value}]) → Redactor
//   redactor.text(s) → string            redactor.value(jsonLike) → same shape, strings redacted
//   NO_SECRETS: a Redactor with nothing to hide
export interface NamedSecret {
  name: string;
  value: string;
}

export interface Redactor {
  /** How many values it hides (0 for NO_SECRETS). */
  readonly size: number;
  text(text: string): string;
  /** Strings anywhere inside arrays and plain objects redacted; other values unchanged. */
  value<T>(value: T): T;
}

export function redactedMarker(name: string): string {
  return `[REDACTED:${name}]`;
}

/** The forms a value takes in what leaves or comes back: as is, in a URL, inside a JSON string. */
function formsOf(value: string): string[] {
  const forms = new Set([value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)]);
  return [...forms].filter((form) => form.length > 0);
}

export function createRedactor(secrets: readonly NamedSecret[]): Redactor {
  // Longest first, so a value containing another is hidden whole.
  const pairs = secrets
    .flatMap((secret) =>
      formsOf(secret.value).map((form) => ({ form, marker: redactedMarker(secret.name) })),
    )
    .sort((a, b) => b.form.length - a.form.length);
  const text = (input: string): string => {
    let out = input;
    for (const { form, marker } of pairs) {
      if (out.includes(form)) out = out.split(form).join(marker);
    }
    return out;
  };
  const value = <T>(input: T): T => redactDeep(input, text) as T;
  return { size: secrets.length, text, value };
}

function redactDeep(input: unknown, text: (s: string) => string): unknown {
  if (typeof input === 'string') return text(input);
  if (Array.isArray(input)) return input.map((item) => redactDeep(item, text));
  if (
    input !== null &&
    typeof input === 'object' &&
    Object.getPrototypeOf(input) === Object.prototype
  ) {
    return Object.fromEntries(
      Object.entries(input).map(([key, item]) => [text(key), redactDeep(item, text)]),
    );
  }
  return input;
}

export const NO_SECRETS: Redactor = createRedactor([]);
