// The notification channel shapes of the REST API (docs/channels.md), as the dashboard reads
// them: generated from /openapi.json (api.gen.ts).
import type { components } from './api.gen';

type Schemas = components['schemas'];

export type Channel = Schemas['Channel'];
export type ChannelKind = Channel['kind'];
export type ChannelDelivery = Schemas['ChannelDelivery'];
export type ChannelTestResult = Schemas['ChannelTestResult'];
export type NotifyWhen = 'always' | 'failed' | 'recovered' | 'changed' | 'agent';

export const CHANNEL_KINDS: ChannelKind[] = ['slack', 'discord', 'teams', 'telegram', 'email'];
export const NOTIFY_WHEN: NotifyWhen[] = ['always', 'failed', 'recovered', 'changed', 'agent'];

/** The kind's config from the form's fields. */
export function configOf(
  kind: ChannelKind,
  fields: { url: string; botToken: string; chatId: string; to: string },
): Record<string, unknown> {
  if (kind === 'telegram') {
    const chat = fields.chatId.trim();
    return {
      bot_token: fields.botToken.trim(),
      chat_id: /^-?\d+$/.test(chat) ? Number(chat) : chat,
    };
  }
  if (kind === 'email') {
    return { to: fields.to.split(/[,\s]+/).filter((address) => address !== '') };
  }
  return { url: fields.url.trim() };
}

/** Where a channel sends, in words. */
export function targetOf(channel: Channel): string {
  const config = channel.config as Record<string, unknown>;
  if (channel.kind === 'telegram') return `chat ${String(config.chat_id)}`;
  if (channel.kind === 'email') return ((config.to as string[] | undefined) ?? []).join(', ');
  return String(config.url ?? '');
}
