// The outbound guard against real sockets on loopback: refused destinations never receive a
// request, allowed ones answer, redirects and body sizes follow the caller's rules.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgeAddress } from '../../src/outbound/address-policy.js';
import { OutboundError, sendOutbound, type Resolver } from '../../src/outbound/request.js';

const PUBLIC_ONLY = { allowPrivateNetworks: false } as const;
const PRIVATE_OK = { allowPrivateNetworks: true } as const;
// Loopback itself stands in for "a public host" where a test needs a first hop that answers.
const LOOPBACK_TRUSTED = { allowPrivateNetworks: false, allowedCidrs: ['127.0.0.1/32'] } as const;

let server: http.Server;
let port = 0;
const seenPaths: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seenPaths.push(req.url ?? '');
    if (req.url === '/redirect-metadata') {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    } else if (req.url === '/redirect-internal') {
      res.writeHead(307, { location: 'http://internal.test:8080/admin' }).end();
    } else if (req.url === '/redirect-same') {
      res.writeHead(302, { location: '/ok' }).end();
    } else if (req.url === '/large') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('x'.repeat(64 * 1024));
    } else if (req.url === '/silent') {
      // Never answers: the caller's time bound must end the exchange.
    } else {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function refusal(promise: Promise<unknown>): Promise<OutboundError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(OutboundError);
  return error as OutboundError;
}

const base = { timeoutMs: 5000, maxResponseBytes: 4096 } as const;

describe('outbound guard', () => {
  it('refuses a name that resolves to 127.0.0.1 and sends nothing', async () => {
    const before = seenPaths.length;
    const error = await refusal(
      sendOutbound({ ...base, url: `http://localhost:${port}/x`, policy: PUBLIC_ONLY }),
    );
    expect(error.kind).toBe('blocked_address');
    expect(error.message).toMatch(/loopback/);
    expect(seenPaths.length).toBe(before);
  });

  it('judges the address the connection uses (a rebinding name answering 127.0.0.1)', async () => {
    const rebinding: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const before = seenPaths.length;
    const error = await refusal(
      sendOutbound({
        ...base,
        url: `http://rebind.test:${port}/x`,
        policy: PUBLIC_ONLY,
        resolve: rebinding,
      }),
    );
    expect(error.kind).toBe('blocked_address');
    expect(seenPaths.length).toBe(before);
  });

  it('refuses 169.254.169.254 (cloud metadata)', async () => {
    const error = await refusal(
      sendOutbound({
        ...base,
        url: 'http://169.254.169.254/latest/meta-data/',
        policy: PUBLIC_ONLY,
      }),
    );
    expect(error.kind).toBe('blocked_address');
    expect(error.message).toMatch(/link-local/);
  });

  it('refuses an IPv4-mapped IPv6 literal of loopback', async () => {
    const error = await refusal(
      sendOutbound({ ...base, url: `http://[::ffff:127.0.0.1]:${port}/`, policy: PUBLIC_ONLY }),
    );
    expect(error.kind).toBe('blocked_address');
  });

  it('reaches a private address when the caller allows private networks', async () => {
    const response = await sendOutbound({
      ...base,
      url: `http://localhost:${port}/hello`,
      policy: PRIVATE_OK,
    });
    expect(response.status).toBe(200);
    expect(response.body.toString()).toBe('ok');
    expect(response.truncated).toBe(false);
  });

  it('never lends a kept-alive socket of a permissive caller to a strict one', async () => {
    const url = `http://localhost:${port}/hello`;
    expect((await sendOutbound({ ...base, url, policy: PRIVATE_OK })).status).toBe(200);
    const before = seenPaths.length;
    const error = await refusal(sendOutbound({ ...base, url, policy: PUBLIC_ONLY }));
    expect(error.kind).toBe('blocked_address');
    expect(seenPaths.length).toBe(before);
  });

  it('follows no redirect by default: the 3xx is the answer', async () => {
    const response = await sendOutbound({
      ...base,
      url: `http://127.0.0.1:${port}/redirect-metadata`,
      policy: LOOPBACK_TRUSTED,
    });
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe('http://169.254.169.254/latest/meta-data/');
  });

  it('refuses a redirect to a private address even when the rule allows the redirect', async () => {
    const anyHost = { maxRedirects: 3, allow: () => true };
    const toMetadata = await refusal(
      sendOutbound({
        ...base,
        url: `http://127.0.0.1:${port}/redirect-metadata`,
        policy: LOOPBACK_TRUSTED,
        redirect: anyHost,
      }),
    );
    expect(toMetadata.kind).toBe('blocked_address');
    const internalName: Resolver = async (name) =>
      name === 'internal.test' ? [{ address: '10.0.0.5', family: 4 }] : [];
    const toInternal = await refusal(
      sendOutbound({
        ...base,
        url: `http://127.0.0.1:${port}/redirect-internal`,
        policy: LOOPBACK_TRUSTED,
        redirect: anyHost,
        resolve: internalName,
      }),
    );
    expect(toInternal.kind).toBe('blocked_address');
    expect(toInternal.message).toMatch(/private-network/);
  });

  it('follows a redirect the rule allows and refuses one it does not', async () => {
    const sameHost = {
      maxRedirects: 2,
      allow: (target: URL, from: URL) => target.host === from.host,
    };
    const followed = await sendOutbound({
      ...base,
      url: `http://127.0.0.1:${port}/redirect-same`,
      policy: LOOPBACK_TRUSTED,
      redirect: sameHost,
    });
    expect(followed.status).toBe(200);
    expect(followed.url).toBe(`http://127.0.0.1:${port}/ok`);
    const refused = await refusal(
      sendOutbound({
        ...base,
        url: `http://127.0.0.1:${port}/redirect-internal`,
        policy: LOOPBACK_TRUSTED,
        redirect: sameHost,
      }),
    );
    expect(refused.kind).toBe('redirect_refused');
  });

  it('cuts a body over the bound', async () => {
    const response = await sendOutbound({
      ...base,
      url: `http://127.0.0.1:${port}/large`,
      policy: PRIVATE_OK,
      maxResponseBytes: 4096,
    });
    expect(response.status).toBe(200);
    expect(response.body.length).toBe(4096);
    expect(response.truncated).toBe(true);
  });

  it('ends an exchange that outlives its time bound', async () => {
    const error = await refusal(
      sendOutbound({
        ...base,
        url: `http://127.0.0.1:${port}/silent`,
        policy: PRIVATE_OK,
        timeoutMs: 300,
      }),
    );
    expect(error.kind).toBe('timeout');
  });

  it('reports a refused connection as a connect error', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await refusal(
      sendOutbound({ ...base, url: `http://127.0.0.1:${closedPort}/`, policy: PRIVATE_OK }),
    );
    expect(error.kind).toBe('connect');
  });

  it('classifies addresses with the maintained ranges (IPv4 and IPv6)', () => {
    const refused = [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '224.0.0.1',
      '0.0.0.0',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:169.254.169.254',
      '64:ff9b::7f00:1',
    ];
    const allowed = ['8.8.8.8', '1.1.1.1', '2606:4700::1111', '::ffff:8.8.8.8'];
    expect(refused.filter((ip) => judgeAddress(ip, PUBLIC_ONLY).allowed)).toEqual([]);
    expect(allowed.filter((ip) => !judgeAddress(ip, PUBLIC_ONLY).allowed)).toEqual([]);
    expect(refused.filter((ip) => !judgeAddress(ip, PRIVATE_OK).allowed)).toEqual([]);
  });
});
