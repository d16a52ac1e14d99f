// Stand-ins for the platforms notification channels post to, on loopback: Slack and Teams
// incoming webhooks, a Discord webhook, the Telegram Bot API, and an SMTP server (nodemailer's
// smtp-server, each mail read with mailparser). Each HTTP stand-in checks every payload against
// the platform's documented shape and limits (a breach is kept in `problems`), answers as the
// platform does, and answers 429 with the platform's throttling hint when told to.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export type PlatformKind = 'slack' | 'discord' | 'telegram' | 'teams';

export interface PlatformMessage {
  path: string;
  body: Record<string, unknown>;
  raw: string;
  receivedAtMs: number;
}

export interface PlatformStandIn {
  url: string;
  messages: PlatformMessage[];
  /** Payloads that broke the platform's documented shape or limits. */
  problems: string[];
  /** The next `count` requests are answered 429 asking to wait `retryAfterSeconds`. */
  throttle(count: number, retryAfterSeconds: number): void;
  /** Every request from now on is answered with this status (0: normal again). */
  failWith(status: number): void;
  throttledAtMs: number[];
  /** The most requests it held at once. */
  maxOpen: number;
  close(): Promise<void>;
}

export async function startPlatformStandIn(
  kind: PlatformKind,
  options: { telegramToken?: string; hangFirst?: boolean; delayMs?: number } = {},
): Promise<PlatformStandIn> {
  let requests = 0;
  let open = 0;
  let throttleLeft = 0;
  let retryAfterSeconds = 1;
  let failStatus = 0;
  let nextId = 1;
  const standIn: PlatformStandIn = {
    url: '',
    messages: [],
    problems: [],
    throttledAtMs: [],
    maxOpen: 0,
    throttle(count, seconds) {
      throttleLeft = count;
      retryAfterSeconds = seconds;
    },
    failWith(status) {
      failStatus = status;
    },
    close: async () => undefined,
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    open += 1;
    standIn.maxOpen = Math.max(standIn.maxOpen, open);
    res.on('close', () => (open -= 1));
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (options.delayMs) setTimeout(() => answer(), options.delayMs);
      else answer();
    });
    const answer = () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '';
      requests += 1;
      // The first request is never answered: its sender dies holding it (tests of crashes).
      if (options.hangFirst && requests === 1) return;
      if (failStatus !== 0) {
        res.writeHead(failStatus, { 'content-type': 'text/plain' }).end('no_service');
        return;
      }
      if (throttleLeft > 0) {
        throttleLeft -= 1;
        standIn.throttledAtMs.push(Date.now());
        sendThrottled(kind, res, retryAfterSeconds);
        return;
      }
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        standIn.problems.push(`${kind}: the body is not JSON`);
        res.writeHead(400).end('invalid_payload');
        return;
      }
      const problems = checkPayload(kind, path, body, options);
      standIn.problems.push(...problems);
      if (problems.length > 0) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(`invalid_payload: ${problems[0]}`);
        return;
      }
      standIn.messages.push({ path, body, raw, receivedAtMs: Date.now() });
      const id = nextId++;
      switch (kind) {
        case 'slack':
          res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
          return;
        case 'discord':
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ id: `1100${id}`, channel_id: '42', type: 0 }));
          return;
        case 'telegram':
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(
              JSON.stringify({ ok: true, result: { message_id: id, chat: { id: body.chat_id } } }),
            );
          return;
        case 'teams':
          res.writeHead(202).end();
          return;
      }
    };
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  standIn.url = `http://127.0.0.1:${port}`;
  standIn.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return standIn;
}

function sendThrottled(kind: PlatformKind, res: http.ServerResponse, seconds: number): void {
  if (kind === 'telegram') {
    // The Bot API says it in the body only: parameters.retry_after.
    res.writeHead(429, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        ok: false,
        error_code: 429,
        description: `Too Many Requests: retry after ${seconds}`,
        parameters: { retry_after: seconds },
      }),
    );
    return;
  }
  if (kind === 'discord') {
    res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(seconds) }).end(
      JSON.stringify({
        message: 'You are being rate limited.',
        retry_after: seconds,
        global: false,
      }),
    );
    return;
  }
  res
    .writeHead(429, { 'retry-after': String(seconds), 'content-type': 'text/plain' })
    .end('rate_limited');
}

const TELEGRAM_SPECIAL = '_*[]()~`>#+-=|{}.!\\';

function checkPayload(
  kind: PlatformKind,
  path: string,
  body: Record<string, unknown>,
  options: { telegramToken?: string },
): string[] {
  const problems: string[] = [];
  const fail = (text: string) => problems.push(`${kind}: ${text}`);
  if (kind === 'slack') {
    // api.slack.com/reference/block-kit: ≤50 blocks, a section's text ≤3000, a header ≤150.
    if (typeof body.text !== 'string') fail('no fallback text');
    const blocks = body.blocks as { type: string; text?: { type: string; text: string } }[];
    if (!Array.isArray(blocks) || blocks.length === 0 || blocks.length > 50)
      fail('blocks: 1 to 50');
    for (const block of blocks ?? []) {
      if (block.type === 'section' && (block.text?.text.length ?? 0) > 3000) fail('section > 3000');
      if (
        block.type === 'header' &&
        (block.text?.type !== 'plain_text' || block.text.text.length > 150)
      ) {
        fail('header: plain_text ≤ 150');
      }
    }
  }
  if (kind === 'discord') {
    // discord.com/developers/docs/resources/webhook: content ≤2000; embeds ≤10; an embed's
    // title ≤256, description ≤4096, and all its text ≤6000.
    if (!new URL(path, 'http://x').searchParams.has('wait')) fail('no ?wait=true');
    if (typeof body.content === 'string' && body.content.length > 2000) fail('content > 2000');
    const embeds = body.embeds as { title?: string; description?: string }[] | undefined;
    if (body.content === undefined && (!Array.isArray(embeds) || embeds.length === 0))
      fail('empty');
    if ((embeds?.length ?? 0) > 10) fail('more than 10 embeds');
    for (const embed of embeds ?? []) {
      if ((embed.title?.length ?? 0) > 256) fail('title > 256');
      if ((embed.description?.length ?? 0) > 4096) fail('description > 4096');
      if ((embed.title?.length ?? 0) + (embed.description?.length ?? 0) > 6000)
        fail('embed > 6000');
    }
  }
  if (kind === 'telegram') {
    // core.telegram.org/bots/api#sendmessage and #markdownv2-style.
    if (path !== `/bot${options.telegramToken ?? ''}/sendMessage`) fail(`path ${path}`);
    if (body.parse_mode !== 'MarkdownV2') fail('parse_mode');
    if (body.chat_id === undefined) fail('no chat_id');
    const text = typeof body.text === 'string' ? body.text : '';
    const visible = text.replace(/\\(.)/g, '$1');
    if (visible.length < 1 || visible.length > 4096) fail(`text length ${visible.length}`);
    // Outside the title's *…* and the link's [..](..), every special character is escaped.
    const inner = text
      .replace(/^\*(?:\\.|[^*\\])*\*/, '')
      .replace(/\[(?:\\.|[^\]\\])*\]\((?:\\.|[^)\\])*\)$/, '');
    for (let i = 0; i < inner.length; i++) {
      const char = inner.charAt(i);
      if (char === '\\') {
        i += 1;
        continue;
      }
      if (TELEGRAM_SPECIAL.includes(char)) {
        fail(`unescaped ${char}`);
        break;
      }
    }
  }
  if (kind === 'teams') {
    // Workflows webhook: a message with one Adaptive Card attachment; a message ≤ 28 KB.
    if (body.type !== 'message') fail('type is not message');
    const attachments = body.attachments as {
      contentType: string;
      content: Record<string, unknown>;
    }[];
    const card = attachments?.[0];
    if (card?.contentType !== 'application/vnd.microsoft.card.adaptive') fail('contentType');
    if (card?.content.type !== 'AdaptiveCard' || typeof card.content.version !== 'string')
      fail('card');
    if (!Array.isArray(card?.content.body)) fail('card body');
    if (Buffer.byteLength(JSON.stringify(body)) > 28 * 1024) fail('message > 28 KB');
  }
  return problems;
}

export interface MailStandIn {
  port: number;
  /** Each mail with the time its data ended (arrivedAtMs). */
  mails: (ParsedMail & { arrivedAtMs: number })[];
  /** Raw envelopes' auth: the user and password each session logged in with. */
  logins: { username: string; password: string }[];
  /** The next `count` messages are answered with this SMTP reply code (e.g. 451 or 550). */
  rejectNext(count: number, code: number): void;
  close(): Promise<void>;
}

/** An SMTP server (smtp-server) on loopback, plain or with AUTH required, reading mail with mailparser. */
export async function startMailStandIn(
  options: { auth?: { username: string; password: string } } = {},
): Promise<MailStandIn> {
  const mails: (ParsedMail & { arrivedAtMs: number })[] = [];
  const logins: { username: string; password: string }[] = [];
  let rejectLeft = 0;
  let rejectCode = 451;
  const server = new SMTPServer({
    secure: false,
    disabledCommands: options.auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !options.auth,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      logins.push({ username: auth.username ?? '', password: auth.password ?? '' });
      if (
        options.auth &&
        (auth.username !== options.auth.username || auth.password !== options.auth.password)
      ) {
        callback(new Error('Invalid username or password'));
        return;
      }
      callback(null, { user: auth.username });
    },
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const arrivedAtMs = Date.now();
        if (rejectLeft > 0) {
          rejectLeft -= 1;
          const error = new Error(
            rejectCode >= 500 ? 'mailbox unavailable' : 'try again later',
          ) as Error & {
            responseCode: number;
          };
          error.responseCode = rejectCode;
          callback(error);
          return;
        }
        simpleParser(Buffer.concat(chunks)).then(
          (mail) => {
            mails.push(Object.assign(mail, { arrivedAtMs }));
            callback();
          },
          (err: Error) => callback(err),
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    mails,
    logins,
    rejectNext(count, code) {
      rejectLeft = count;
      rejectCode = code;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
