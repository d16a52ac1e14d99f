// HERMES_SECRETS_KEY: the 32-byte key that encrypts tenant secrets at rest.
//
//   parseSecretsKey(text) → Buffer (32 bytes) | null    hex (64 chars) or base64 (44 chars)
//   generateSecretsKey()  → string                      64 hex chars, for `hermesx dev`
import { randomBytes } from 'node:crypto';

export const SECRETS_KEY_BYTES = 32;

/**
 * The shipped compose files' key, so they work as they are: public, so `saas-api` treats it as
 * it treats the guide's example tokens (refused on a non-loopback address unless
 * HERMESX_INSECURE_EXAMPLE_SECRETS=true).
 */
export const EXAMPLE_SECRETS_KEY = 'example-secrets-key-NOT-FOR-PRODUCTION-0000';

/** The key as 32 bytes, from 64 hex characters or standard/URL-safe base64; null otherwise. */
export function parseSecretsKey(text: string): Buffer | null {
  const trimmed = text.trim();
  if (/^[0-9a-f]{64}$/i.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) {
    const bytes = Buffer.from(trimmed.replaceAll('-', '+').replaceAll('_', '/'), 'base64');
    if (bytes.length === SECRETS_KEY_BYTES) return bytes;
  }
  return null;
}

export function generateSecretsKey(): string {
  return randomBytes(SECRETS_KEY_BYTES).toString('hex');
}
