// The kinds of notification channel and the settings each one takes (docs/channels.md). A secret
// value (a bot token, an SMTP password) is never stored here: only a `{{secrets.NAME}}` reference
// to a tenant secret, substituted when a message leaves. A webhook URL (Slack, Discord, Teams) is
// stored sealed when there is a key (src/channels/url-seal.ts).
import { z } from 'zod';

export const CHANNEL_KINDS = ['email', 'slack', 'discord', 'telegram', 'teams'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

/** Exactly one secret reference, e.g. {{secrets.TELEGRAM_TOKEN}}. */
export const SECRET_REFERENCE = /^\{\{\s*secrets\.([A-Za-z_][A-Za-z0-9_]{0,63})\s*\}\}$/;

const secretReference = z
  .string()
  .max(100)
  .regex(SECRET_REFERENCE, 'expected a tenant secret reference such as {{secrets.NAME}}')
  .describe('a tenant secret reference, {{secrets.NAME}}: the value is never stored here');

const webhookUrl = z.string().max(2048).describe('the incoming-webhook URL the platform gave');

const address = z.string().max(320).email();

export const SlackConfig = z.strictObject({ url: webhookUrl });
export const DiscordConfig = z.strictObject({ url: webhookUrl });
export const TeamsConfig = z.strictObject({
  url: webhookUrl.describe(
    'the Workflows ("Post to a channel when a webhook request is received") URL',
  ),
});
export const TelegramConfig = z.strictObject({
  bot_token: secretReference,
  chat_id: z
    .union([z.string().min(1).max(100), z.number().int()])
    .describe('the chat: a numeric id or @channelusername'),
});
export const SmtpServer = z.strictObject({
  host: z.string().min(1).max(253),
  port: z.number().int().min(1).max(65535).optional().describe('default 465 (tls) or 587'),
  security: z
    .enum(['tls', 'starttls', 'none'])
    .optional()
    .describe(
      'tls: TLS from the start (port 465); starttls: upgraded (587); none: plain, only where private networks are allowed (dev); default tls',
    ),
  username: z.string().max(320).optional(),
  password: secretReference.optional(),
  from: address.describe('the From address'),
});
export const EmailConfig = z.strictObject({
  to: z.array(address).min(1).max(10).describe('1 to 10 recipients'),
  smtp: SmtpServer.optional().describe(
    "the tenant's own SMTP server; absent: the server's (SMTP_URL)",
  ),
});

export type SlackSettings = z.output<typeof SlackConfig>;
export type TelegramSettings = z.output<typeof TelegramConfig>;
export type EmailSettings = z.output<typeof EmailConfig>;
export type SmtpSettings = z.output<typeof SmtpServer>;

export const CONFIG_SCHEMAS = {
  email: EmailConfig,
  slack: SlackConfig,
  discord: DiscordConfig,
  telegram: TelegramConfig,
  teams: TeamsConfig,
} as const;

/** The channel's settings as stored (jsonb), by kind. */
export type ChannelConfig =
  | { kind: 'email'; config: EmailSettings }
  | { kind: 'slack' | 'discord' | 'teams'; config: { url: string } }
  | { kind: 'telegram'; config: TelegramSettings };

/** The secret a reference names. */
export function secretNameOf(reference: string): string {
  const match = SECRET_REFERENCE.exec(reference);
  if (!match?.[1]) throw new Error('not a secret reference');
  return match[1];
}
