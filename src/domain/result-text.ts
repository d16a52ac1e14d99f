// How much of a run's answer the run row holds: the whole answer up to RESULT_INLINE_BYTES, else
// its short form (the first RESULT_SHORT_CHARS characters) with the whole answer in the result
// store. Pure, so the scheduler, the stores and the API cut alike.

export const RESULT_INLINE_BYTES = 8192;
export const RESULT_SHORT_CHARS = 4096;

/** The short form lists show: the first 4,096 characters, at most 8 KiB. */
export function shortResult(text: string): string {
  let end = Math.min(text.length, RESULT_SHORT_CHARS);
  // Not between the two halves of a surrogate pair (an emoji, say).
  const last = text.charCodeAt(end - 1);
  if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return cutUtf8(text.slice(0, end), RESULT_INLINE_BYTES);
}

/** The longest prefix of `text` that is at most maxBytes in UTF-8, never half a character. */
export function cutUtf8(text: string, maxBytes: number): string {
  // Every UTF-16 unit is at most 3 UTF-8 bytes: short texts need no encoding.
  if (text.length * 3 <= maxBytes || Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  const bytes = Buffer.from(text, 'utf8');
  let end = maxBytes;
  // Back up to the first byte of a character (continuation bytes are 10xxxxxx).
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end).toString('utf8');
}
