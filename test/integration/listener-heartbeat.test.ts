// The job listener on a link that breaks without a close (a dead peer, a dropped route): no error
// arrives, so only its heartbeat can tell. Through a TCP proxy whose open connections stop passing
// bytes (new ones still pass), the listener notices within two beats, connects again, says since
// when notifications may have been missed, and hears the next ones.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenForJobChanges, type JobListener } from '../../src/db/listen.js';
import { createTestDatabase, withOwner } from '../helpers/database.js';
import { capturingLogger } from '../helpers/log.js';

const HEARTBEAT_MS = 300;

/** A proxy to host:port whose open connections can be frozen: bytes held, nothing closed. */
async function startFreezableProxy(host: string, port: number) {
  const open = new Set<{ client: net.Socket; upstream: net.Socket }>();
  const every = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(port, host);
    const pair = { client, upstream };
    open.add(pair);
    for (const socket of [client, upstream]) {
      socket.on('error', () => {});
      every.add(socket);
    }
    client.pipe(upstream).pipe(client);
    const forget = () => {
      open.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', forget);
    upstream.on('close', forget);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    /** The connections open now go silent; they are not closed. */
    freeze(): number {
      for (const { client, upstream } of open) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
      const frozen = open.size;
      open.clear();
      return frozen;
    },
    close: () => {
      for (const socket of every) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let url: string;
let proxy: Awaited<ReturnType<typeof startFreezableProxy>>;
let listener: JobListener | undefined;

beforeAll(async () => {
  url = await createTestDatabase();
  const target = new URL(url);
  proxy = await startFreezableProxy(target.hostname, Number(target.port));
});

afterAll(async () => {
  // The proxy first: a listener still on a frozen connection would wait for it to end.
  await proxy?.close();
  await listener?.close();
});

async function until(what: string, done: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('job listener heartbeat', () => {
  it('notices a silent link, listens again, and says since when it may have missed notifications', async () => {
    const viaProxy = new URL(url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const heard: string[] = [];
    const reconnects: number[] = [];
    const { log, lines } = capturingLogger();
    listener = listenForJobChanges({
      databaseUrl: viaProxy.toString(),
      log,
      onJobsChanged: (ids) => heard.push(...ids),
      onManyJobsChanged: () => {},
      onTrigger: () => {},
      onReconnected: (lostAtMs) => reconnects.push(lostAtMs),
      heartbeatMs: HEARTBEAT_MS,
    });
    const notify = (payload: string) =>
      withOwner(url, (c) => c.query(`SELECT pg_notify('hermesx_cron_jobs', $1)`, [payload]));
    const ping = setInterval(() => void notify('before'), 100);
    try {
      await until('the first notification', () => heard.includes('before'));
    } finally {
      clearInterval(ping);
    }

    const frozenAtMs = Date.now();
    expect(proxy.freeze()).toBe(1);
    await until('a reconnect', () => reconnects.length > 0);
    const noticedMs = Date.now() - frozenAtMs;
    expect(noticedMs).toBeLessThan(4 * HEARTBEAT_MS + 2000);
    // The last answer came before the freeze, at most a beat (and its query) earlier.
    expect(reconnects[0]).toBeLessThanOrEqual(frozenAtMs);
    expect(reconnects[0]).toBeGreaterThanOrEqual(frozenAtMs - 2 * HEARTBEAT_MS - 200);
    expect(lines.some((line) => line.includes('msg="job notifications: connection silent"'))).toBe(
      true,
    );

    const again = setInterval(() => void notify('after'), 100);
    try {
      await until('a notification after the reconnect', () => heard.includes('after'));
    } finally {
      clearInterval(again);
    }
  }, 30_000);
});
