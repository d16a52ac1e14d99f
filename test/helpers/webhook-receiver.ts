// A webhook receiver on loopback, as a tenant would run one: it verifies every message with the
// `standardwebhooks` package's Webhook.verify and answers what the test's handler says.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedMessage {
  path: string;
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  /** The parsed payload when Webhook.verify accepted it with one of the receiver's secrets. */
  verified: unknown;
  /** The secrets (by index in `secrets`) whose verification passed. */
  verifiedBy: number[];
  receivedAtMs: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
}

export interface Receiver {
  url: string;
  received: ReceivedMessage[];
  /** Secrets to verify with (set them once the endpoint exists). */
  secrets: string[];
  close(): Promise<void>;
}

export async function startReceiver(
  answer: (message: ReceivedMessage, count: number) => Answer = () => ({ status: 200 }),
): Promise<Receiver> {
  const received: ReceivedMessage[] = [];
  const receiver: Receiver = { url: '', received, secrets: [], close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = {
        'webhook-id': String(req.headers['webhook-id'] ?? ''),
        'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
        'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
      };
      let verified: unknown = null;
      const verifiedBy: number[] = [];
      receiver.secrets.forEach((secret, index) => {
        try {
          verified = new Webhook(secret).verify(body, headers);
          verifiedBy.push(index);
        } catch {
          // Not signed by this secret.
        }
      });
      const message: ReceivedMessage = {
        path: req.url ?? '',
        id: headers['webhook-id'],
        timestamp: headers['webhook-timestamp'],
        signature: headers['webhook-signature'],
        body,
        verified,
        verifiedBy,
        receivedAtMs: Date.now(),
      };
      received.push(message);
      const reply = answer(message, received.length);
      const send = () => res.writeHead(reply.status, reply.headers).end(reply.body ?? '');
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return receiver;
}
