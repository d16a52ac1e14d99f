import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

export interface LogOptions {
  format: 'text' | 'json';
  level: 'debug' | 'info' | 'warn' | 'error';
  /** Where lines go; standard output when omitted. */
  write?: (line: string) => void;
}

const SECRET_KEYS = [
  'authorization',
  'token',
  'apiKey',
  'api_key',
  'password',
  'secret',
  'key',
  '*.authorization',
  '*.token',
  '*.apiKey',
  '*.api_key',
  '*.password',
  '*.secret',
  'req.headers.authorization',
  'req.headers.cookie',
];

/** The root logger: logfmt (`level=INFO msg="…" key=value`) or one JSON object per line. */
export function createLogger(options: LogOptions): Logger {
  const write = options.write ?? ((line: string) => process.stdout.write(line));
  const destination: DestinationStream = {
    write: options.format === 'text' ? (line) => write(formatLogfmt(line)) : write,
  };
  return pino(
    {
      level: options.level,
      hooks: { logMethod: dropFastifyListening },
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: SECRET_KEYS, censor: '***' },
      formatters: {
        level: (label) => ({ level: label.toUpperCase() }),
        log: redactUrls,
      },
    },
    destination,
  );
}

/**
 * Fastify logs "Server listening at <url>" once per interface on listen; the service logs its own
 * `http server listening` line with the address it binds, so these repeat it (and list 127.0.0.1
 * for a server bound to every interface).
 */
function dropFastifyListening(
  this: Logger,
  args: Parameters<Logger['info']>,
  method: (...args: Parameters<Logger['info']>) => void,
): void {
  const message = typeof args[0] === 'string' ? args[0] : args[1];
  if (typeof message === 'string' && message.startsWith('Server listening at ')) return;
  method.apply(this, args);
}

function redactUrls(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    out[key] = typeof value === 'string' ? redactUrl(value) : value;
  }
  return out;
}

/** Turns one pino JSON line into a logfmt line with `time`, `level` and `msg` first. */
export function formatLogfmt(jsonLine: string): string {
  const record = JSON.parse(jsonLine) as Record<string, unknown>;
  const { time, level, msg, err, ...rest } = record;
  const parts = [`time=${formatValue(time)}`, `level=${formatValue(level)}`];
  parts.push(`msg=${formatValue(msg ?? '')}`);
  for (const [key, value] of Object.entries(rest)) parts.push(`${key}=${formatValue(value)}`);
  if (err !== undefined) parts.push(`error=${formatValue(describeError(err))}`);
  return parts.join(' ') + '\n';
}

function describeError(err: unknown): string {
  if (err && typeof err === 'object' && 'message' in err) return String(err.message);
  return String(err);
}

function formatValue(value: unknown): string {
  const text =
    value === null || value === undefined
      ? ''
      : typeof value === 'object'
        ? JSON.stringify(value)
        : String(value);
  return BARE_VALUE.test(text) ? text : quote(text);
}

// Characters a logfmt value may hold unquoted: printable, and none of space " = \.
const BARE_VALUE = /^[^\s"=\\\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]+$/u;
// Escaped inside quotes: " and \, and every control or format character (C0, DEL, C1, bidi
// overrides, line separators), so no log line can be split, recoloured or reordered on a terminal.
const NEEDS_ESCAPE = /["\\\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu;
const SHORT_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** A quoted value with Go logfmt's escapes (\" \\ \n \r \t) and \uXXXX for other controls. */
function quote(text: string): string {
  const escaped = text.replace(NEEDS_ESCAPE, (c) => {
    if (c === '"' || c === '\\') return `\\${c}`;
    return SHORT_ESCAPES[c] ?? unicodeEscape(c);
  });
  return `"${escaped}"`;
}

/** \uXXXX per UTF-16 code unit (a pair for characters beyond U+FFFF), as Go and JSON read it. */
function unicodeEscape(character: string): string {
  let out = '';
  for (let i = 0; i < character.length; i++) {
    out += `\\u${character.charCodeAt(i).toString(16).padStart(4, '0')}`;
  }
  return out;
}

/** Hides the password of a URL so connection strings can be logged and shown in errors. */
export function redactUrl(text: string): string {
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*):[^@/\s]+@/i, '$1:***@');
}
