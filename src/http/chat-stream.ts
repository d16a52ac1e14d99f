import { PassThrough } from 'node:stream';
import type { FastifyReply } from 'fastify';

export interface ChunkBase {
  id: string;
  created: number;
  model: string;
}

type Usage = { prompt_tokens: number; completion_tokens: number; total_tokens: number };

/**
 * One chat answer as OpenAI server-sent events, written as the agent produces it. The response
 * starts (200, chunked, no content-length) at the first content delta or the first heartbeat,
 * whichever comes first: a model failure before that still gets its proper status code. The
 * heartbeat is an SSE comment, which clients ignore and idle proxies count as traffic.
 */
export class ChatStream {
  private stream: PassThrough | undefined;
  private readonly timer: NodeJS.Timeout;
  private sentBytes = 0;

  constructor(
    private readonly reply: FastifyReply,
    private readonly base: ChunkBase,
    heartbeatMs: number,
    private readonly maxContentBytes: number,
  ) {
    this.timer = setInterval(() => this.open().write(': keep-alive\n\n'), heartbeatMs);
  }

  get opened(): boolean {
    return this.stream !== undefined;
  }

  /** Content as the model streams it; what exceeds the answer limit is dropped. */
  delta(text: string): void {
    const room = this.maxContentBytes - this.sentBytes;
    if (room <= 0) return;
    const piece =
      Buffer.byteLength(text) <= room
        ? text
        : Buffer.from(text)
            .subarray(0, room)
            .toString('utf8')
            .replace(/\uFFFD+$/, '');
    this.sentBytes += Buffer.byteLength(piece);
    this.event({ content: piece }, null);
  }

  /** Ends the answer: text not streamed yet (an answer the agent wrote), stop, usage, [DONE]. */
  finish(unsent: string | undefined, usage: Usage | undefined): void {
    if (unsent) this.delta(unsent);
    this.event({}, 'stop');
    if (usage) this.write({ ...this.envelope(), choices: [], usage });
    this.end('data: [DONE]\n\n');
  }

  /** A failure after the response started: an error event, which the OpenAI SDKs raise. */
  fail(code: string, message: string): void {
    this.end(`data: ${JSON.stringify({ error: { code, message, type: code } })}\n\n`);
  }

  /** Stops the heartbeat; a stream already started is ended (its client is gone). */
  cancel(): void {
    clearInterval(this.timer);
    this.stream?.end();
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
    stream.write(this.line(this.chunk({ role: 'assistant', content: '' }, null)));
    return stream;
  }

  private event(delta: object, finish: string | null): void {
    this.write(this.chunk(delta, finish));
  }

  private write(payload: object): void {
    this.open().write(this.line(payload));
  }

  private end(text: string): void {
    clearInterval(this.timer);
    this.open().end(text);
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
