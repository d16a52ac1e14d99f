// Each platform's message built from a ChannelMessage (pure), within the platform's documented
// limits: a longer answer is split where the platform allows several parts and cut where it
// does not, the cut ending with a link to the run's page (PUBLIC_URL) so nothing is out of reach.
import type { ChannelMessage } from './message.js';
import {
  cutText,
  escapeMarkdownV2,
  markdownToHtml,
  markdownToMrkdwn,
  splitText,
} from './markdown.js';

/** The documented limits each builder keeps to. */
export const LIMITS = {
  /** Slack: a section's text, blocks per message, a header's plain text. */
  slackSectionChars: 3000,
  slackBlocks: 50,
  slackHeaderChars: 150,
  /** Discord: an embed's title and description, and all of an embed's text together. */
  discordTitleChars: 256,
  discordDescriptionChars: 4096,
  discordEmbedTotalChars: 6000,
  /** Telegram: a message's text after entities are parsed. */
  telegramTextChars: 4096,
  /** Teams: a message is at most 28 KB; the card's text is kept well under it. */
  teamsTextChars: 20_000,
  /** Email: the subject line (a sensible length; the body has no platform limit). */
  emailSubjectChars: 200,
} as const;

const SEVERITY_COLORS = { info: 0x2e7d32, warning: 0xf9a825, critical: 0xc62828 } as const;

function cutSuffix(message: ChannelMessage, linkText: (url: string) => string): string {
  return message.link ? `\n… (cut: ${linkText(message.link)})` : '\n… (cut)';
}

/** Slack incoming webhook: Block Kit (header, sections of mrkdwn, a link), `text` the fallback. */
export function buildSlack(message: ChannelMessage): Record<string, unknown> {
  const header = cutText(message.title, LIMITS.slackHeaderChars, '…').text;
  const sections = splitText(markdownToMrkdwn(message.body), LIMITS.slackSectionChars);
  // header + sections + the link's context block ≤ 50.
  const room = LIMITS.slackBlocks - 2;
  if (sections.length > room) {
    sections.length = room;
    const last = sections[room - 1] ?? '';
    const suffix = cutSuffix(message, (url) => `<${url}|the full answer>`);
    sections[room - 1] = cutText(last + suffix, LIMITS.slackSectionChars, suffix).text;
  }
  const blocks: Record<string, unknown>[] = [
    { type: 'header', text: { type: 'plain_text', text: header, emoji: true } },
    ...sections.map((text) => ({ type: 'section', text: { type: 'mrkdwn', text } })),
  ];
  if (message.link) {
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: `<${message.link}|Open the run in HermesX>` }],
    });
  }
  return { text: header, blocks };
}

/** Discord webhook: one embed (title, description, link, colour); no mentions are parsed. */
export function buildDiscord(message: ChannelMessage): Record<string, unknown> {
  const title = cutText(message.title, LIMITS.discordTitleChars, '…').text;
  const room = Math.min(
    LIMITS.discordDescriptionChars,
    LIMITS.discordEmbedTotalChars - title.length,
  );
  const suffix = cutSuffix(message, (url) => `[the full answer](${url})`);
  const description = cutText(message.body, room, suffix).text;
  return {
    embeds: [
      {
        title,
        description,
        ...(message.link ? { url: message.link } : {}),
        color: SEVERITY_COLORS[message.severity],
        timestamp: message.time,
      },
    ],
    allowed_mentions: { parse: [] },
  };
}

/** Telegram sendMessage: MarkdownV2, every character of the answer escaped (shown as typed). */
export function buildTelegram(
  message: ChannelMessage,
  chatId: string | number,
): Record<string, unknown> {
  const linkLine = message.link ? '\nOpen the run: ' : '';
  const visibleRoom =
    LIMITS.telegramTextChars -
    message.title.length -
    2 -
    linkLine.length -
    (message.link?.length ?? 0);
  const suffix = message.link ? '\n… (cut)' : '\n… (cut)';
  const body = cutText(message.body, Math.max(100, visibleRoom), suffix).text;
  const title = cutText(message.title, 200, '…').text;
  let text = `*${escapeMarkdownV2(title)}*\n\n${escapeMarkdownV2(body)}`;
  if (message.link) {
    const url = message.link.replace(/[)\\]/g, (char) => `\\${char}`);
    text += `\n[${escapeMarkdownV2('Open the run')}](${url})`;
  }
  return {
    chat_id: chatId,
    text,
    parse_mode: 'MarkdownV2',
    link_preview_options: { is_disabled: true },
  };
}

/** Teams Workflows webhook: a message carrying an Adaptive Card (1.4). */
export function buildTeams(message: ChannelMessage): Record<string, unknown> {
  const suffix = cutSuffix(message, (url) => `[the full answer](${url})`);
  const body = cutText(message.body, LIMITS.teamsTextChars, suffix).text;
  const card = {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    type: 'AdaptiveCard',
    version: '1.4',
    body: [
      {
        type: 'TextBlock',
        text: message.title,
        weight: 'Bolder',
        size: 'Medium',
        wrap: true,
        color: message.severity === 'info' ? 'Default' : 'Attention',
      },
      { type: 'TextBlock', text: body, wrap: true },
    ],
    ...(message.link
      ? { actions: [{ type: 'Action.OpenUrl', title: 'Open the run', url: message.link }] }
      : {}),
  };
  return {
    type: 'message',
    attachments: [
      { contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: card },
    ],
  };
}

export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

/** Email: the subject line, the Markdown as plain text, and HTML rendered from it. */
export function buildEmail(message: ChannelMessage): EmailContent {
  const subject = cutText(
    `[HermesX] ${message.title}`.replace(/[\r\n]+/g, ' '),
    LIMITS.emailSubjectChars,
    '…',
  ).text;
  const linkText = message.link ? `\n\nOpen the run: ${message.link}\n` : '\n';
  const linkHtml = message.link
    ? `<p><a href="${escapeHtml(message.link)}">Open the run in HermesX</a></p>`
    : '';
  return {
    subject,
    text: `${message.body}${linkText}`,
    html: `<h2>${escapeHtml(message.title)}</h2>\n${markdownToHtml(message.body)}${linkHtml}`,
  };
}

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}
