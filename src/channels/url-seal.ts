// Slack, Discord and Teams webhook URLs at rest: each is a capability (whoever has it may post),
// so with HERMES_SECRETS_KEY it is sealed by the tenant secrets' cipher (AES-256-GCM,
// src/secrets/cipher.ts), the additional data binding it to its tenant and to `channel:<id>`, so
// a sealed value copied to another channel or tenant does not open. The channel's config then
// holds `url_sealed` (base64) and `url_shown` (the masked start the API shows) instead of `url`.
//
//   sealChannelConfig(key | undefined, owner, kind, config) → config   what a write stores
//   openChannelConfig(key | undefined, owner, config) → config          the sender's and the test's
//   sealChannelUrlsAtStart(pool, key | undefined, log)                  rows still plain, at start
//
// Without a key a URL is stored as before (plain, under RLS) and the pod says so at start; the
// first pod that starts with a key seals every plain row.
import type { Pool } from '../db/pool.js';
import type { Logger } from '../log.js';
import { openSecret, sealSecret, type SecretOwner } from '../secrets/cipher.js';
import { sealPlainAtStart } from '../secrets/seal-at-start.js';
import type { ChannelKind } from './kinds.js';
import { maskUrl } from './views.js';

export interface ChannelOwner {
  tenantId: string;
  channelId: string;
}

export class ChannelUrlError extends Error {
  override name = 'ChannelUrlError';
}

/** The kinds whose `url` is a capability; email and Telegram keep secrets as references. */
const SEALED_KINDS: ReadonlySet<ChannelKind> = new Set(['slack', 'discord', 'teams']);
const SEAL_BATCH = 200;

function cipherOwner(owner: ChannelOwner): SecretOwner {
  return { tenantId: owner.tenantId, name: `channel:${owner.channelId}` };
}

/** The config as a row stores it: the URL sealed when there is a key and the kind has one. */
export function sealChannelConfig(
  key: Buffer | undefined,
  owner: ChannelOwner,
  kind: ChannelKind,
  config: Record<string, unknown>,
): Record<string, unknown> {
  const { url, ...rest } = config;
  if (!key || !SEALED_KINDS.has(kind) || typeof url !== 'string') return config;
  return {
    ...rest,
    url_sealed: sealSecret(key, cipherOwner(owner), url).toString('base64'),
    url_shown: maskUrl(url),
  };
}

/** The config to send with: the URL opened; throws ChannelUrlError (never with the value). */
export function openChannelConfig(
  key: Buffer | undefined,
  owner: ChannelOwner,
  config: Record<string, unknown>,
): Record<string, unknown> {
  const { url_sealed: sealed, url_shown: _shown, ...rest } = config;
  if (typeof sealed !== 'string') return config;
  if (!key) {
    throw new ChannelUrlError(
      "the channel's URL is sealed and HERMES_SECRETS_KEY is not set on this pod",
    );
  }
  try {
    return { ...rest, url: openSecret(key, cipherOwner(owner), Buffer.from(sealed, 'base64')) };
  } catch {
    throw new ChannelUrlError(
      "the channel's URL cannot be decrypted (sealed for another channel, or HERMES_SECRETS_KEY differs from the key it was sealed with)",
    );
  }
}

interface PlainRow {
  id: string;
  tenant_id: string;
  kind: ChannelKind;
  url: string;
}

/**
 * Seals every Slack, Discord and Teams URL still in plain text (rows from before sealing, or
 * written by a pod without a key), in batches; each row only if its URL is unchanged since it was
 * read. Idempotent, so pods starting together do no harm. Returns how many rows it sealed.
 */
export async function sealPlainChannelUrls(pool: Pool, key: Buffer): Promise<number> {
  let sealed = 0;
  let after: string | null = null;
  for (;;) {
    const { rows }: { rows: PlainRow[] } = await pool.query<PlainRow>(
      'SELECT * FROM channel_plain_urls($1, $2)',
      [after, SEAL_BATCH],
    );
    for (const row of rows) {
      const config = sealChannelConfig(
        key,
        { tenantId: row.tenant_id, channelId: row.id },
        row.kind,
        { url: row.url },
      );
      const { rows: done } = await pool.query<{ sealed: boolean }>(
        'SELECT channel_seal_url($1, $2, $3, $4) AS sealed',
        [row.id, row.url, config.url_sealed, config.url_shown],
      );
      if (done[0]?.sealed) sealed += 1;
    }
    if (rows.length < SEAL_BATCH) return sealed;
    after = rows[rows.length - 1]?.id ?? null;
  }
}

/** At start: seal what is plain (logged with the count), or warn that URLs stay plain. */
export function sealChannelUrlsAtStart(
  pool: Pool,
  key: Buffer | undefined,
  log: Logger,
): Promise<void> {
  return sealPlainAtStart(pool, key, log, {
    what: 'notification channel webhook URLs',
    whatInWarning: 'notification channel webhook URLs (Slack, Discord, Teams)',
    countField: 'channels',
    seal: sealPlainChannelUrls,
  });
}
