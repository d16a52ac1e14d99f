// Every encoding a secret can take in a URL, a header or JSON is hidden, and a cut never leaves a
// secret's first characters: the redaction runs before the cut, and a text whose end was cut
// (a response read up to a byte limit) loses a secret's first characters at its end too.
import { describe, expect, it } from 'vitest';
import { truncateText } from '../../src/agent/loop.js';
import { createRedactor, MIN_HIDDEN_PREFIX_CHARS } from '../../src/secrets/redact.js';

const PASSWORD = "p@ss'w0rd!";
const redactor = createRedactor([{ name: 'PW', value: PASSWORD }]);
const MARKER = '[REDACTED:PW]';

/** Whether any run of MIN_HIDDEN_PREFIX_CHARS or more of the secret's first characters remains. */
function leaksPrefix(text: string, secret: string): boolean {
  return text.includes(secret.slice(0, MIN_HIDDEN_PREFIX_CHARS));
}

describe('redaction of a secret in a URL', () => {
  it.each([
    ['encodeURIComponent', `?q=${encodeURIComponent(PASSWORD)}`],
    ['encodeURI', encodeURI(`https://api.test/x?q=${PASSWORD}`)],
    ['the WHATWG URL of a query', new URL(`https://api.test/x?q=${PASSWORD}`).href],
    ['the WHATWG URL of a path', new URL(`https://api.test/${PASSWORD}`).href],
    ['the WHATWG URL of a fragment', new URL(`https://api.test/#${PASSWORD}`).href],
    ['URLSearchParams', `?${new URLSearchParams({ q: PASSWORD }).toString()}`],
    ['lower-case hex', `?q=${encodeURIComponent(PASSWORD).toLowerCase()}`],
    ['every character percent-encoded', `?q=${percentAll(PASSWORD)}`],
  ])('hides it %s', (_how, text) => {
    const out = redactor.text(text);
    expect(out).toContain(MARKER);
    expect(out).not.toContain('p@ss');
    expect(out).not.toContain('w0rd');
  });

  it('hides a space written as + (form encoding) and as %20', () => {
    const spaced = createRedactor([{ name: 'S', value: 'two words & more' }]);
    expect(spaced.text(`a=${new URLSearchParams({ q: 'two words & more' }).toString()}`)).toBe(
      'a=q=[REDACTED:S]',
    );
    expect(spaced.text(`q=${encodeURIComponent('two words & more')}`)).toBe('q=[REDACTED:S]');
  });

  it('hides non-ASCII characters as UTF-8 percent-encoding and as \\u escapes', () => {
    const accented = createRedactor([{ name: 'U', value: 'pässwörd-€-😀' }]);
    expect(accented.text(encodeURIComponent('pässwörd-€-😀'))).toBe('[REDACTED:U]');
    const escaped = 'pässwörd-€-😀'.replace(
      /[^\x20-\x7e]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
    expect(accented.text(escaped)).toBe('[REDACTED:U]');
  });
});

describe('redaction of a secret in JSON', () => {
  const tricky = createRedactor([{ name: 'Q', value: 'say "hi"\\now/then' }]);

  it('hides JSON string escapes \\" \\\\ \\/ and \\uXXXX', () => {
    const json = JSON.stringify({ q: 'say "hi"\\now/then' });
    expect(tricky.text(json)).toBe('{"q":"[REDACTED:Q]"}');
    expect(tricky.text('"say \\"hi\\"\\\\now\\/then"')).toBe('"[REDACTED:Q]"');
    expect(tricky.text('say \\u0022hi\\u0022\\u005Cnow\\u002fthen')).toBe('[REDACTED:Q]');
    expect(redactor.text('{"pw":"p@ss\\u0027w0rd\\u0021"}')).toBe(`{"pw":"${MARKER}"}`);
  });

  it('hides JSON inside JSON, and JSON inside a URL', () => {
    const twice = JSON.stringify(JSON.stringify({ q: 'say "hi"\\now/then' }));
    expect(tricky.text(twice)).not.toContain('now');
    const inUrl = `?body=${encodeURIComponent(JSON.stringify({ q: 'say "hi"\\now/then' }))}`;
    expect(tricky.text(inUrl)).toContain('[REDACTED:Q]');
    expect(tricky.text(inUrl)).not.toContain('now');
  });
});

describe('redaction of a secret in base64', () => {
  it.each([
    ['user:secret (Basic auth)', 'user'],
    ['u:secret', 'u'],
    ['us:secret', 'us'],
  ])('hides Basic auth of %s', (_how, user) => {
    const header = `Basic ${Buffer.from(`${user}:${PASSWORD}`).toString('base64')}`;
    const out = redactor.text(header);
    expect(out).toContain(MARKER);
    // What is left around the marker depends on the user name and at most one byte of the value.
    expect(out.replace(MARKER, '').length).toBeLessThan(
      header.length - Buffer.from(PASSWORD).toString('base64').length + 4,
    );
  });

  it('hides the value alone in base64, standard and URL-safe', () => {
    const value = 'sk~~??>>live-0123456789';
    const b64 = createRedactor([{ name: 'K', value }]);
    const standard = Buffer.from(value).toString('base64');
    const urlSafe = Buffer.from(value).toString('base64url');
    expect(standard).not.toBe(urlSafe);
    for (const encoded of [standard, urlSafe, encodeURIComponent(standard)]) {
      const out = b64.text(`token=${encoded}`);
      expect(out).toMatch(/^token=\[REDACTED:K\].{0,4}$/);
    }
  });
});

describe('redaction and a cut', () => {
  // The finding: a 21-character secret, a response padded so the 32 KB cut falls inside it.
  const SECRET = 'tok_live_0123456789ab';
  const cutting = createRedactor([{ name: 'TOKEN', value: SECRET }]);
  const shownBytes = 32 * 1024;
  const marker = ` …[truncated from 99999 bytes]`;

  it('is a 21-character secret', () => expect(SECRET).toHaveLength(21));

  it.each(Array.from({ length: 21 }, (_, i) => i))(
    'redacting before the cut leaves no prefix when the cut falls %i characters into the secret',
    (into) => {
      const padding = 'x'.repeat(shownBytes - Buffer.byteLength(marker) - into);
      const body = `${padding}${SECRET} and more${'z'.repeat(100)}`;
      const shown = truncateText(cutting.text(body), shownBytes);
      expect(shown).toContain('truncated from');
      expect(leaksPrefix(shown, SECRET)).toBe(false);
      // Cutting first is what leaked: this is the order the tool no longer uses.
      if (into >= MIN_HIDDEN_PREFIX_CHARS) {
        expect(leaksPrefix(cutting.text(truncateText(body, shownBytes)), SECRET)).toBe(true);
      }
    },
  );

  it('hides what a cut left of a secret at the end of a text, in any encoding', () => {
    for (let kept = MIN_HIDDEN_PREFIX_CHARS; kept < SECRET.length; kept += 1) {
      expect(cutting.cutText(`body ${SECRET.slice(0, kept)}`)).toBe('body [REDACTED:TOKEN]');
    }
    expect(cutting.cutText(`body ${SECRET.slice(0, MIN_HIDDEN_PREFIX_CHARS - 1)}`)).toBe(
      `body ${SECRET.slice(0, MIN_HIDDEN_PREFIX_CHARS - 1)}`,
    );
    expect(redactor.cutText('?q=p%40ss%27w0')).toBe(`?q=${MARKER}`);
    expect(redactor.cutText('?q=p%40ss%2')).toBe(`?q=${MARKER}`);
    expect(redactor.cutText('{"pw":"p@ss\\u00')).toBe(`{"pw":"${MARKER}`);
    // A whole secret earlier in the text is hidden as text() hides it.
    expect(cutting.cutText(`${SECRET} then ${SECRET.slice(0, 10)}`)).toBe(
      '[REDACTED:TOKEN] then [REDACTED:TOKEN]',
    );
    // Nothing to hide: unchanged.
    expect(cutting.cutText('an ordinary text')).toBe('an ordinary text');
  });
});

function percentAll(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) => `%${byte.toString(16).padStart(2, '0').toUpperCase()}`)
    .join('');
}
