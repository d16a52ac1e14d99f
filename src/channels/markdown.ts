// The answer's Markdown in each platform's dialect (pure). HTML comes from markdown-it with raw
// HTML off, so an answer's tags are escaped text, never markup: sanitized by construction.
import MarkdownIt from 'markdown-it';

const markdownIt = new MarkdownIt({ html: false, linkify: true, breaks: true });

/** HTML for an email body; raw HTML in the Markdown is escaped. */
export function markdownToHtml(markdown: string): string {
  return markdownIt.render(markdown);
}

const CODE = /```[\s\S]*?```|`[^`\n]+`/g;

/**
 * Slack's mrkdwn: **bold** and __bold__ → *bold*, *italic* → _italic_, ~~strike~~ → ~strike~,
 * [text](url) → <url|text>, headings → bold lines; &, < and > escaped as Slack asks. Code spans
 * and blocks are kept as they are (escaped only).
 */
export function markdownToMrkdwn(markdown: string): string {
  const codes: string[] = [];
  const held = markdown.replace(CODE, (code) => `\uE000${codes.push(code) - 1}\uE000`);
  const converted = escapeSlack(held)
    .replace(/^#{1,6}\s+(.+?)\s*#*$/gm, '\uE001$1\uE001')
    .replace(
      /\*\*(.+?)\*\*|__(.+?)__/g,
      (_m, a: string | undefined, b: string | undefined) => `\uE001${a ?? b ?? ''}\uE001`,
    )
    .replace(/(^|[^*\w])\*(?!\s)([^*\n]+?)\*(?!\w)/g, '$1_$2_')
    .replace(/~~(.+?)~~/g, '~$1~')
    .replace(/\[([^\]\n]+)\]\((https?:[^)\s]+)\)/g, '<$2|$1>')
    .replace(/^(\s*)[-*+]\s+/gm, '$1• ')
    .replace(/\uE001/g, '*');
  return converted.replace(/\uE000(\d+)\uE000/g, (_m, i: string) =>
    escapeSlack(codes[Number(i)] ?? ''),
  );
}

function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const TELEGRAM_SPECIAL = /[_*[\]()~`>#+\-=|{}.!\\]/g;

/** Text shown literally in Telegram's MarkdownV2 (every special character escaped). */
export function escapeMarkdownV2(text: string): string {
  return text.replace(TELEGRAM_SPECIAL, (char) => `\\${char}`);
}

/**
 * Cuts text to at most `max` characters (UTF-16 units, as the platforms count), at a line or word
 * boundary when one is near, leaving room for `suffix`, which is appended when it was cut.
 */
export function cutText(text: string, max: number, suffix: string): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  const room = Math.max(0, max - suffix.length);
  let end = room;
  const boundary = Math.max(text.lastIndexOf('\n', room), text.lastIndexOf(' ', room));
  if (boundary > room * 0.8) end = boundary;
  // Never split a surrogate pair.
  if (end > 0 && /[\uD800-\uDBFF]/.test(text.charAt(end - 1))) end -= 1;
  return { text: text.slice(0, end).trimEnd() + suffix, cut: true };
}

/** Splits text into parts of at most `max` characters, at line or word boundaries when near. */
export function splitText(text: string, max: number): string[] {
  const parts: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const { text: head } = cutText(rest, max, '');
    parts.push(head);
    rest = rest.slice(head.length).replace(/^\s+/, '');
  }
  if (rest.length > 0 || parts.length === 0) parts.push(rest);
  return parts;
}
