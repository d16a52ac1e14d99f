// One reader for the bench scripts' numeric flags, so a bad value exits instead of running as NaN.

/** The number after `--name` (argv defaults to process.argv); exits with code 2 when it is not one. */
export function numberOption(
  name: string,
  fallback: number,
  argv: readonly string[] = process.argv,
): number {
  const i = argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const text = argv[i + 1];
  const value = Number(text);
  // Number('') is 0: an empty value is as missing as none.
  if (text === undefined || text.trim() === '' || !Number.isFinite(value)) {
    const got = text === undefined ? 'nothing' : JSON.stringify(text);
    process.stderr.write(`--${name} needs a number, got ${got}\n`);
    process.exit(2);
  }
  return value;
}
