import { pino, type DestinationStream, type Logger } from 'pino';
import { redactUrl } from './config.js';

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
  return /^[^\s"=\\]+$/.test(text) ? text : JSON.stringify(text);
}
