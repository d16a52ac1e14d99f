import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

// A session's id is 256 random bits, in the browser's cookie only; the database keeps its SHA-256.
// Its CSRF token is derived from the id (so GET /auth/me can hand it to the page again without
// the database holding it) and is stored as a SHA-256 as well.

export function generateSessionId(): string {
  return randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function csrfTokenOf(sessionId: string): string {
  return createHmac('sha256', sessionId).update('hermesx csrf').digest('base64url');
}

/** Constant-time: does the header's token match the session's stored digest? */
export function isCsrfTokenOf(given: string | undefined, storedHash: string): boolean {
  if (given === undefined || given.length > 200) return false;
  const expected = Buffer.from(storedHash, 'hex');
  const actual = createHash('sha256').update(given).digest();
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
