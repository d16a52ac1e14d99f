// `hermesx dev --demo-model`: a stand-in model server on 127.0.0.1 for trying HermesX without a
// real one. It speaks the OpenAI chat-completions shape (plain and streamed) and every answer
// says it is the demo model's, so nobody takes it for a model's work. Only `dev` starts it.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const DEMO_MODEL = 'hermesx-demo';
const MAX_BODY_BYTES = 1024 * 1024;
const QUOTE_CHARS = 200;

export interface DemoModelServer {
  /** The base URL, as LLM_API_URL takes it (…/v1). */
  url: string;
  stop(): Promise<void>;
}

interface ChatRequest {
  messages?: { role?: string; content?: unknown }[];
  stream?: boolean;
}

/** The demo answer to a conversation: names itself and quotes the last user message. */
export function demoAnswer(request: ChatRequest): string {
  const last = [...(request.messages ?? [])].reverse().find((m) => m.role === 'user');
  const text = typeof last?.content === 'string' ? last.content : '';
  const quoted = text.length > QUOTE_CHARS ? `${text.slice(0, QUOTE_CHARS)}…` : text;
  return (
    `[HermesX demo model] This answer is from the demo model of \`hermesx dev --demo-model\`, ` +
    `not from a language model. You asked: "${quoted.replace(/\s+/g, ' ').trim()}". ` +
    'For real answers start a model server (docs/agent.md, "Model server") and restart without --demo-model.'
  );
}

export async function startDemoModel(): Promise<DemoModelServer> {
  const server = createServer((req, res) => {
    void answer(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '').split('?')[0];
  if (req.method === 'GET' && path === '/v1/models') {
    return sendJson(res, 200, { object: 'list', data: [{ id: DEMO_MODEL, object: 'model' }] });
  }
  if (req.method !== 'POST' || path !== '/v1/chat/completions') {
    return sendJson(res, 404, { error: { message: 'the demo model serves /v1/chat/completions' } });
  }
  const body = await readBody(req);
  let request: ChatRequest;
  try {
    request = JSON.parse(body) as ChatRequest;
  } catch {
    return sendJson(res, 400, { error: { message: 'the body is not JSON' } });
  }
  const content = demoAnswer(request);
  const id = `chatcmpl-demo-${Date.now()}`;
  const created = Math.floor(Date.now() / 1000);
  const usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  if (request.stream) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    const chunk = (delta: object, finish: string | null) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: DEMO_MODEL, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    res.write(chunk({ role: 'assistant', content }, null));
    res.write(chunk({}, 'stop'));
    res.end('data: [DONE]\n\n');
    return;
  }
  sendJson(res, 200, {
    id,
    object: 'chat.completion',
    created,
    model: DEMO_MODEL,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage,
  });
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > MAX_BODY_BYTES) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
