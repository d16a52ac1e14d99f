// The start-up pass that seals values still stored in plain text (webhook signing secrets,
// channel webhook URLs), or the warning that they stay plain without HERMES_SECRETS_KEY. A pass
// that fails is logged and left to the next start: plain values still work meanwhile.
import type { Pool } from '../db/pool.js';
import type { Logger } from '../log.js';

export interface PlainValues {
  /** What they are, as the log lines name them ("webhook signing secrets"). */
  what: string;
  /** The same, with what the reader needs to recognise them, in the warning without a key. */
  whatInWarning?: string;
  /** The log field counting the rows sealed. */
  countField: string;
  /** Seals every plain row; the number sealed. */
  seal(pool: Pool, key: Buffer): Promise<number>;
}

export async function sealPlainAtStart(
  pool: Pool,
  key: Buffer | undefined,
  log: Logger,
  values: PlainValues,
): Promise<void> {
  if (!key) {
    log.warn(
      `${values.whatInWarning ?? values.what} are stored unsealed: HERMES_SECRETS_KEY is not set (set it and restart to seal them)`,
    );
    return;
  }
  try {
    const sealed = await values.seal(pool, key);
    if (sealed > 0) log.info({ [values.countField]: sealed }, `${values.what} sealed`);
  } catch (err) {
    log.warn(
      { error: err instanceof Error ? err.message : String(err) },
      `${values.what} not sealed at start`,
    );
  }
}
