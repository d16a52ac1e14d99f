import { createLogger, type Logger } from '../../src/log.js';
import { waitFor } from './process-wait.js';

/** A logger that drops everything (tests assert on behaviour, not on log noise). */
export function silentLogger(): Logger {
  return createLogger({ format: 'json', level: 'error', write: () => {} });
}

/** A logger that keeps its lines, for tests that assert on log output. */
export function capturingLogger(format: 'text' | 'json' = 'text'): {
  log: Logger;
  lines: string[];
} {
  const lines: string[] = [];
  const log = createLogger({ format, level: 'debug', write: (line) => lines.push(line) });
  return { log, lines };
}

/**
 * The first captured line holding every part, waited for: a line a background step writes after
 * the state a test awaits (a row committed, an object deleted) may not be there yet.
 */
export async function loggedLine(lines: string[], ...parts: string[]): Promise<string> {
  return waitFor(
    () => {
      const found = lines.find((line) => parts.every((part) => line.includes(part)));
      if (found === undefined) throw new Error(`no line yet with ${parts.join(' and ')}`);
      return found;
    },
    { timeoutMs: 10_000, what: `a log line with ${parts.join(' and ')}` },
  );
}
