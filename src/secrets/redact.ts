// The one redaction function. Everything a run or a request stores, logs, returns to the model or
// delivers passes through a Redactor built from the tenant's secret values, which replaces every
// occurrence of a value, in any of the encodings a value takes in a URL, a header or JSON, with
// `[REDACTED:NAME]`. Redact before any cut: a cut after redaction can only split a marker.
//
//   createRedactor([{name, value}]) → Redactor
//   redactor.text(s) → string            redactor.value(jsonLike) → same shape, strings redacted
//   redactor.cutText(s) → string         text() of a text cut off at its end: a secret's first
//                                        characters (4 or more) left at the end are hidden too
//   NO_SECRETS: a Redactor with nothing to hide
//
// The encodings, each character on its own (so mixtures match too): as is; percent-encoded
// (encodeURIComponent, encodeURI, the WHATWG URL serialisations, either case of hex); `+` for a
// space (forms); JSON string escapes (`\"`, `\\`, `\/`, `\uXXXX`, also behind more backslashes
// or a percent-encoded backslash, as JSON inside JSON or inside a URL); and base64 of the value
// at any of the three byte alignments (Basic auth's `user:secret`, the value alone), standard or
// URL-safe: only the characters that depend on the value's bytes alone, so any prefix matches.
export interface NamedSecret {
  name: string;
  value: string;
}

export interface Redactor {
  /** How many values it hides (0 for NO_SECRETS). */
  readonly size: number;
  text(text: string): string;
  /** text() of a text whose end was cut: also hides a secret's first characters at the end. */
  cutText(text: string): string;
  /** Strings anywhere inside arrays and plain objects redacted; other values unchanged. */
  value<T>(value: T): T;
}

/** A secret's first characters left at a cut are hidden from this many on. */
export const MIN_HIDDEN_PREFIX_CHARS = 4;
/** Base64 runs shorter than this are too likely to occur by chance to be hidden. */
const MIN_BASE64_CHARS = 8;

export function redactedMarker(name: string): string {
  return `[REDACTED:${name}]`;
}

interface Form {
  marker: string;
  /** One regex source per character of the form (every encoding of that character). */
  units: string[];
}

export function createRedactor(secrets: readonly NamedSecret[]): Redactor {
  const bySecret = secrets.map((secret) => ({
    length: secret.value.length,
    forms: formsOf(secret.value)
      .sort((a, b) => b.length - a.length)
      .map((form): Form => ({
        marker: redactedMarker(secret.name),
        units: [...form].map(unitPattern),
      })),
  }));
  // Longest first, so a value containing another is hidden whole. One regex per secret: one
  // alternation over all the tenant's forms is many times slower to scan.
  const passes = bySecret
    .filter((secret) => secret.forms.length > 0)
    .sort((a, b) => b.length - a.length)
    .map(({ forms }) => ({
      marker: forms[0]!.marker,
      any: new RegExp(forms.map((form) => form.units.join('')).join('|'), 'g'),
    }));
  const forms = bySecret
    .flatMap((secret) => secret.forms)
    .sort((a, b) => b.units.length - a.units.length);
  // Built at the first cut text only: most redactors never see one.
  let stickyUnits: RegExp[][] | undefined;
  const text = (input: string): string => {
    let out = input;
    for (const { marker, any } of passes) out = out.replace(any, () => marker);
    return out;
  };
  const cutText = (input: string): string => {
    const out = text(input);
    stickyUnits ??= forms.map((form) => form.units.map((unit) => new RegExp(unit, 'y')));
    for (let i = 0; i < forms.length; i += 1) {
      const start = prefixAtEnd(out, stickyUnits[i]!);
      if (start !== null) return out.slice(0, start) + forms[i]!.marker;
    }
    return out;
  };
  const value = <T>(input: T): T => redactDeep(input, text) as T;
  return { size: secrets.length, text, cutText, value };
}

/** The value as is and its base64 runs: the strings whose encodings are hidden. */
function formsOf(value: string): string[] {
  if (value.length === 0) return [];
  const forms = new Set([value]);
  const bytes = Buffer.from(value, 'utf8');
  for (const offset of [0, 1, 2]) {
    const padded = Buffer.concat([Buffer.alloc(offset), bytes]);
    // Characters touching a byte before the value or after it depend on those bytes: left out.
    const first = Math.ceil((offset * 8) / 6);
    const end = Math.floor((padded.length * 8) / 6);
    const core = padded.toString('base64').slice(first, end);
    if (core.length < MIN_BASE64_CHARS) continue;
    forms.add(core);
    forms.add(core.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return [...forms];
}

/** A backslash as is or percent-encoded. */
const BACKSLASH = '(?:\\\\|%5[Cc])';

/** Every way one character (a code point) may be written: see the top of the file. */
function unitPattern(char: string): string {
  const alternatives: string[] = [];
  if (char === '\\') alternatives.push(`${BACKSLASH}+`);
  else alternatives.push(escapeRegExp(char));
  alternatives.push([...Buffer.from(char, 'utf8')].map(percentPattern).join(''));
  if (char === ' ') alternatives.push('\\+');
  if (char === '"' || char === '/') {
    alternatives.push(
      `${BACKSLASH}+(?:${escapeRegExp(char)}|${percentPattern(char.charCodeAt(0))})`,
    );
  }
  const codeUnits = Array.from({ length: char.length }, (_, i) => char.charCodeAt(i));
  alternatives.push(codeUnits.map((unit) => `${BACKSLASH}+u${hexPattern(unit, 4)}`).join(''));
  return `(?:${alternatives.join('|')})`;
}

function percentPattern(byte: number): string {
  return `%${hexPattern(byte, 2)}`;
}

/** Hex digits of `n`, each letter in either case. */
function hexPattern(n: number, digits: number): string {
  return [...n.toString(16).padStart(digits, '0')]
    .map((digit) => (/[a-f]/.test(digit) ? `[${digit.toUpperCase()}${digit}]` : digit))
    .join('');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** What a cut can leave of an encoded character: part of a `%XX` or of a `\uXXXX`. */
const PARTIAL_ENCODING = /^[%\\0-9A-Fa-fu]{0,12}$/;

/**
 * Where a form's first characters (at least MIN_HIDDEN_PREFIX_CHARS, encoded) run to the end of
 * the text, or null. The earliest start wins, so the longest run is hidden.
 */
function prefixAtEnd(text: string, units: RegExp[]): number | null {
  const window = units.length * 12 + 16;
  for (let start = Math.max(0, text.length - window); start < text.length; start += 1) {
    let at = start;
    let matched = 0;
    while (matched < units.length && at < text.length) {
      const unit = units[matched]!;
      unit.lastIndex = at;
      if (!unit.test(text)) break;
      at = unit.lastIndex;
      matched += 1;
    }
    if (matched >= MIN_HIDDEN_PREFIX_CHARS && PARTIAL_ENCODING.test(text.slice(at))) return start;
  }
  return null;
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
