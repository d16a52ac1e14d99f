import { PassThrough } from 'node:stream';
import type { FastifyReply } from 'fastify';

export interface ChunkBase {
  id: string;
  created: number;
  model: string;
}

type Usage = { prompt_tokens: number; completion_tokens: number; total_tokens: number };

// Deltas arriving within this long are sent as one event: a model that streams a byte at a time
// would otherwise cost a whole JSON envelope (~150 bytes) per byte.
const MERGE_DELAY_MS = 25;
// A merged delta this large is sent at once.
const MERGE_MAX_BYTES = 8 * 1024;
/** A client this far behind (bytes written that it has not read) has its turn ended. */
export const MAX_UNSENT_BYTES = 256 * 1024;
/** Bytes of events per stream; past it, content is held and sent with the end of the answer. */
export const MAX_STREAM_BYTES = 1024 * 1024;

export interface ChatStreamOptions {
  heartbeatMs: number;
  /** Content beyond this is dropped (the answer limit). */
  maxContentBytes: number;
}

/**
 * One chat answer as OpenAI server-sent events, written as the agent produces it. The response
 * starts (200, chunked, no content-length) at the first content delta or the first heartbeat,
 * whichever comes first: a model failure before that still gets its proper status code. The
 * heartbeat is an SSE comment, which clients ignore and idle proxies count as traffic.
 *
 * Backpressure: while the client is not reading (`write` returned false, no `drain` yet), deltas
 * are merged in memory (bounded by the answer limit) instead of queued as events, and
 * heartbeats are skipped. A client whose unread bytes still pass MAX_UNSENT_BYTES is
 * disconnected, which ends the turn like any client going away.
 */
export class ChatStream {
  private stream: PassThrough | undefined;
  private readonly heartbeat: NodeJS.Timeout;
  private announced = false;
  private mergeTimer: NodeJS.Timeout | undefined;
  // Pieces, joined when sent: appending a byte at a time to a string costs a 32-byte node each.
  private pending: string[] = [];
  private pendingBytes = 0;
  private contentBytes = 0;
  private writtenBytes = 0;
  private waitingForDrain = false;
  private closed = false;

  constructor(
    private readonly reply: FastifyReply,
    private readonly base: ChunkBase,
    private readonly options: ChatStreamOptions,
  ) {
    this.heartbeat = setInterval(() => {
      if (!this.waitingForDrain) this.write(': keep-alive\n\n');
    }, options.heartbeatMs);
  }

  get opened(): boolean {
    return this.stream !== undefined;
  }

  /** Content as the model streams it; what exceeds the answer limit is dropped. */
  delta(text: string): void {
    if (this.closed) return;
    const room = this.options.maxContentBytes - this.contentBytes;
    if (room <= 0) return;
    const piece =
      Buffer.byteLength(text) <= room
        ? text
        : Buffer.from(text)
            .subarray(0, room)
            .toString('utf8')
            .replace(/\uFFFD+$/, '');
    const bytes = Buffer.byteLength(piece);
    this.contentBytes += bytes;
    this.pending.push(piece);
    this.pendingBytes += bytes;
    if (this.pendingBytes >= MERGE_MAX_BYTES) this.flush();
    else this.mergeTimer ??= setTimeout(() => this.flush(), MERGE_DELAY_MS);
  }

  /** Ends the answer: text not streamed yet (an answer the agent wrote), stop, usage, [DONE]. */
  finish(unsent: string | undefined, usage: Usage | undefined): void {
    if (this.closed) return;
    if (unsent) this.delta(unsent);
    this.flush(true);
    this.event({}, 'stop');
    if (usage) this.write(this.line({ ...this.envelope(), choices: [], usage }));
    this.end('data: [DONE]\n\n');
  }

  /** A failure after the response started: an error event, which the OpenAI SDKs raise. */
  fail(code: string, message: string): void {
    if (this.closed) return;
    this.flush(true);
    this.end(`data: ${JSON.stringify({ error: { code, message, type: code } })}\n\n`);
  }

  /** Stops the timers; a stream already started is ended (its client is gone). */
  cancel(): void {
    this.stopTimers();
    if (this.closed) return;
    this.closed = true;
    this.stream?.end();
  }

  /** Sends the merged content, unless the client is behind (or the stream's budget is spent). */
  private flush(force = false): void {
    clearTimeout(this.mergeTimer);
    this.mergeTimer = undefined;
    if (this.pendingBytes === 0 || this.closed) return;
    if (!force && (this.waitingForDrain || this.writtenBytes >= MAX_STREAM_BYTES)) return;
    const content = this.pending.join('');
    this.pending = [];
    this.pendingBytes = 0;
    this.event({ content }, null);
  }

  private open(): PassThrough {
    if (this.stream) return this.stream;
    const stream = new PassThrough();
    this.stream = stream;
    void this.reply
      .header('content-type', 'text/event-stream; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('x-accel-buffering', 'no')
      .send(stream);
    return stream;
  }

  private event(delta: object, finish: string | null): void {
    // The role chunk goes before the first event, not when a heartbeat opens the stream: by
    // then the chunk names the model that answered (set before its first delta).
    if (!this.announced) {
      this.announced = true;
      this.write(this.line(this.chunk({ role: 'assistant', content: '' }, null)));
    }
    this.write(this.line(this.chunk(delta, finish)));
  }

  private write(text: string): void {
    if (this.closed) return;
    const stream = this.open();
    this.writtenBytes += Buffer.byteLength(text);
    if (!stream.write(text) && !this.waitingForDrain) {
      this.waitingForDrain = true;
      stream.once('drain', () => {
        this.waitingForDrain = false;
        this.flush();
      });
    }
    if (this.unsentBytes() > MAX_UNSENT_BYTES) this.disconnect();
  }

  private end(text: string): void {
    this.stopTimers();
    const stream = this.open();
    this.closed = true;
    stream.end(text);
  }

  /** Bytes written that the client has not read: in the event stream and the socket's queue. */
  private unsentBytes(): number {
    const stream = this.stream;
    if (!stream) return 0;
    return stream.writableLength + stream.readableLength + this.reply.raw.writableLength;
  }

  /** The client stopped reading: drop it (the route aborts the turn when the socket closes). */
  private disconnect(): void {
    this.stopTimers();
    this.closed = true;
    this.pending = [];
    this.pendingBytes = 0;
    this.stream?.destroy();
    this.reply.raw.destroy();
  }

  private stopTimers(): void {
    clearInterval(this.heartbeat);
    clearTimeout(this.mergeTimer);
    this.mergeTimer = undefined;
  }

  private envelope() {
    return {
      id: this.base.id,
      object: 'chat.completion.chunk',
      created: this.base.created,
      model: this.base.model,
    };
  }

  private chunk(delta: object, finish: string | null): object {
    return {
      ...this.envelope(),
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    };
  }

  private line(payload: object): string {
    return `data: ${JSON.stringify(payload)}\n\n`;
  }
}
