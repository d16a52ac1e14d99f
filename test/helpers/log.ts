import { createLogger, type Logger } from '../../src/log.js';

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
