// Sends one message to a channel, the one place a channel message leaves the process: HTTP
// platforms through the outbound guard (src/outbound/), mail through nodemailer, to the
// server's SMTP (SMTP_URL, the operator's) or to the tenant's own server, whose address passes
// the guard's address rules before nodemailer connects (the checked IP is the host, the name
// the TLS servername). Secret values are fetched from the vault at this moment only and never
// appear in what is returned (errors are scrubbed of them).
import type { Transporter } from 'nodemailer';
import { judgeAddress, isIpLiteral } from '../outbound/address-policy.js';
import {
  OutboundError,
  resolveWithSystem,
  sendOutbound,
  type Resolver,
} from '../outbound/request.js';
import type { SecretsVault } from '../secrets/vault.js';
import { retryAfterOf, type ChannelAttemptResult } from './attempt-verdict.js';
import { buildDiscord, buildEmail, buildSlack, buildTeams, buildTelegram } from './formats.js';
import { secretNameOf, type ChannelConfig, type EmailSettings } from './kinds.js';
import type { ChannelMessage } from './message.js';

export interface TransportDeps {
  vault: SecretsVault;
  allowPrivateNetworks: boolean;
  timeoutMs: number;
  telegramApiUrl: string;
  smtpUrl: string | undefined;
  smtpFrom: string | undefined;
  resolve?: Resolver | undefined;
}

const MAX_RESPONSE_BYTES = 4096;
const RESPONSE_CHARS = 500;

export async function sendToChannel(
  deps: TransportDeps,
  tenantId: string,
  channel: ChannelConfig,
  message: ChannelMessage,
): Promise<ChannelAttemptResult> {
  const hidden: string[] = [];
  try {
    const result = await dispatch(deps, tenantId, channel, message, hidden);
    return scrub(result, hidden);
  } catch (err) {
    return scrub({ kind: 'invalid', error: errorText(err) }, hidden);
  }
}

async function dispatch(
  deps: TransportDeps,
  tenantId: string,
  channel: ChannelConfig,
  message: ChannelMessage,
  hidden: string[],
): Promise<ChannelAttemptResult> {
  switch (channel.kind) {
    case 'slack':
      return postJson(deps, channel.config.url, buildSlack(message), deps.allowPrivateNetworks);
    case 'discord':
      return postJson(
        deps,
        discordUrl(channel.config.url),
        buildDiscord(message),
        deps.allowPrivateNetworks,
      );
    case 'teams':
      return postJson(deps, channel.config.url, buildTeams(message), deps.allowPrivateNetworks);
    case 'telegram': {
      const api = new URL(deps.telegramApiUrl);
      const name = secretNameOf(channel.config.bot_token);
      const token = (await deps.vault.resolve(tenantId, [name], api.hostname)).get(name) ?? '';
      hidden.push(token);
      // The Bot API's address is the operator's (TELEGRAM_API_URL), not a tenant's.
      return postJson(
        deps,
        `${deps.telegramApiUrl}/bot${token}/sendMessage`,
        buildTelegram(message, channel.config.chat_id),
        true,
      );
    }
    case 'email':
      return sendMail(deps, tenantId, channel.config, message, hidden);
  }
}

/** ?wait=true: Discord answers with the message it created (its id), not an empty 204. */
function discordUrl(url: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('wait', 'true');
  return parsed.href;
}

async function postJson(
  deps: TransportDeps,
  url: string,
  body: Record<string, unknown>,
  allowPrivateNetworks: boolean,
): Promise<ChannelAttemptResult> {
  try {
    const response = await sendOutbound({
      url,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'HermesX-Channels/1' },
      body: JSON.stringify(body),
      policy: { allowPrivateNetworks },
      timeoutMs: deps.timeoutMs,
      maxResponseBytes: MAX_RESPONSE_BYTES,
      ...(deps.resolve ? { resolve: deps.resolve } : {}),
    });
    const text = response.body.toString('utf8');
    return {
      kind: 'answered',
      statusCode: response.status,
      retryAfterMs:
        response.status === 429 || response.status >= 500
          ? retryAfterOf(response.headers['retry-after'], text, Date.now())
          : null,
      response: text.slice(0, RESPONSE_CHARS),
    };
  } catch (err) {
    if (!(err instanceof OutboundError)) return { kind: 'connect', error: errorText(err) };
    if (['blocked_address', 'invalid_url', 'redirect_refused'].includes(err.kind)) {
      return { kind: 'refused', error: err.message };
    }
    return { kind: err.kind === 'timeout' ? 'timeout' : 'connect', error: err.message };
  }
}

async function sendMail(
  deps: TransportDeps,
  tenantId: string,
  config: EmailSettings,
  message: ChannelMessage,
  hidden: string[],
): Promise<ChannelAttemptResult> {
  const content = buildEmail(message);
  // Loaded on the first mail (Node keeps it): a pod that sends none does not hold it
  // (docs/deployment.md).
  const { default: nodemailer } = await import('nodemailer');
  let transportOptions: Parameters<typeof nodemailer.createTransport>[0];
  let from: string;
  const timeouts = {
    connectionTimeout: deps.timeoutMs,
    greetingTimeout: deps.timeoutMs,
    socketTimeout: deps.timeoutMs,
  };
  if (config.smtp) {
    const smtp = config.smtp;
    const address = await guardedAddress(deps, smtp.host);
    if ('error' in address) return { kind: 'refused', error: address.error };
    let pass: string | undefined;
    if (smtp.password) {
      const name = secretNameOf(smtp.password);
      pass = (await deps.vault.resolve(tenantId, [name], smtp.host)).get(name);
      if (pass !== undefined) hidden.push(pass);
    }
    const security = smtp.security ?? 'tls';
    const tls = security === 'tls';
    transportOptions = {
      host: address.ip,
      port: smtp.port ?? (tls ? 465 : 587),
      secure: tls,
      requireTLS: security === 'starttls',
      ignoreTLS: security === 'none',
      tls: { servername: smtp.host },
      name: 'hermesx',
      ...(smtp.username ? { auth: { user: smtp.username, pass: pass ?? '' } } : {}),
      ...timeouts,
    };
    from = smtp.from;
  } else {
    if (!deps.smtpUrl || !deps.smtpFrom) {
      return {
        kind: 'invalid',
        error: 'this server has no SMTP_URL and SMTP_FROM: give the channel its own smtp server',
      };
    }
    from = deps.smtpFrom;
    const transport = serverTransport(nodemailer, deps.smtpUrl, timeouts);
    return sendThrough(transport, from, config, content, false);
  }
  return sendThrough(nodemailer.createTransport(transportOptions), from, config, content, true);
}

type Nodemailer = (typeof import('nodemailer'))['default'];

// The server's SMTP (the operator's, one for every tenant): a pooled transport kept for the
// process, so a burst of mail reuses a few connections instead of a handshake per message.
const serverTransports = new Map<string, Transporter>();
const SERVER_SMTP_CONNECTIONS = 5;

function serverTransport(
  nodemailer: Nodemailer,
  url: string,
  timeouts: { connectionTimeout: number; greetingTimeout: number; socketTimeout: number },
): Transporter {
  let transport = serverTransports.get(url);
  if (!transport) {
    const options = { url, pool: true, maxConnections: SERVER_SMTP_CONNECTIONS, ...timeouts };
    transport = nodemailer.createTransport(options as never);
    serverTransports.set(url, transport);
  }
  return transport;
}

async function sendThrough(
  transport: Transporter,
  from: string,
  config: EmailSettings,
  content: ReturnType<typeof buildEmail>,
  closeAfter: boolean,
): Promise<ChannelAttemptResult> {
  try {
    const info = await transport.sendMail({
      from,
      to: config.to,
      subject: content.subject,
      text: content.text,
      html: content.html,
    });
    return { kind: 'smtp', code: codeOf(info.response) ?? 250, response: String(info.response) };
  } catch (err) {
    const smtpError = err as { responseCode?: number; response?: string; code?: string };
    if (typeof smtpError.responseCode === 'number') {
      return {
        kind: 'smtp',
        code: smtpError.responseCode,
        response: String(smtpError.response ?? errorText(err)),
      };
    }
    const timedOut = smtpError.code === 'ETIMEDOUT';
    return { kind: timedOut ? 'timeout' : 'connect', error: errorText(err) };
  } finally {
    if (closeAfter) transport.close();
  }
}

/** The SMTP host's first address, when every address it has passes the guard's rules. */
async function guardedAddress(
  deps: TransportDeps,
  host: string,
): Promise<{ ip: string } | { error: string }> {
  const policy = { allowPrivateNetworks: deps.allowPrivateNetworks };
  let addresses: string[];
  try {
    addresses = isIpLiteral(host)
      ? [host]
      : (await (deps.resolve ?? resolveWithSystem)(host)).map((answer) => answer.address);
  } catch (err) {
    return { error: `cannot resolve ${host}: ${errorText(err)}` };
  }
  if (addresses.length === 0) return { error: `${host} has no address` };
  for (const address of addresses) {
    const verdict = judgeAddress(address, policy);
    if (!verdict.allowed) return { error: `refused ${host}: it resolves to ${verdict.reason}` };
  }
  return { ip: addresses[0] as string };
}

function codeOf(response: unknown): number | null {
  const match = /^(\d{3})/.exec(String(response ?? ''));
  return match ? Number(match[1]) : null;
}

function scrub(result: ChannelAttemptResult, hidden: readonly string[]): ChannelAttemptResult {
  const clean = (text: string) =>
    hidden.reduce(
      (acc, value) => (value.length >= 4 ? acc.split(value).join('[secret]') : acc),
      text,
    );
  if ('error' in result) return { ...result, error: clean(result.error) };
  return { ...result, response: clean(result.response) };
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
