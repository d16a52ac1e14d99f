import { describe, expect, it } from 'vitest';
import {
  FairGate,
  GateQueueFull,
  defaultPerTenantConnections,
} from '../../src/agent/model-gate.js';

/** Takes a slot for each request and records the order in which they were granted. */
function recorder(gate: FairGate) {
  const granted: string[] = [];
  const releases = new Map<string, () => void>();
  const ask = (tenant: string, label: string, signal?: AbortSignal) =>
    gate.acquire(tenant, signal).then((release) => {
      granted.push(label);
      releases.set(label, release);
    });
  const release = async (label: string) => {
    releases.get(label)?.();
    // Grants resolve as microtasks.
    await Promise.resolve();
    await Promise.resolve();
  };
  return { granted, ask, release };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('FairGate', () => {
  it('grants at once while slots are free', async () => {
    const gate = new FairGate({ slots: 2, perTenantSlots: 2, maxQueuedPerTenant: 10 });
    const r = recorder(gate);
    void r.ask('a', 'a1');
    void r.ask('a', 'a2');
    void r.ask('a', 'a3');
    await settle();
    expect(r.granted).toEqual(['a1', 'a2']);
    expect(gate.snapshot()).toEqual({ active: 2, held: { a: 2 }, queued: { a: 1 } });
  });

  it("puts a late tenant's request ahead of a flooding tenant's backlog", async () => {
    const gate = new FairGate({ slots: 2, perTenantSlots: 2, maxQueuedPerTenant: 100 });
    const r = recorder(gate);
    for (let i = 1; i <= 10; i++) void r.ask('a', `a${i}`);
    void r.ask('b', 'b1');
    void r.ask('b', 'b2');
    await settle();
    expect(r.granted).toEqual(['a1', 'a2']);
    await r.release('a1');
    await r.release('a2');
    await r.release('b1');
    await r.release('a3');
    await settle();
    // One per tenant per turn: B's first request is next, not A's eighth-in-line.
    expect(r.granted).toEqual(['a1', 'a2', 'a3', 'b1', 'a4', 'b2']);
  });

  it('keeps the rest of the pool for other tenants (per-tenant share)', async () => {
    const gate = new FairGate({ slots: 4, perTenantSlots: 3, maxQueuedPerTenant: 100 });
    const r = recorder(gate);
    for (let i = 1; i <= 6; i++) void r.ask('a', `a${i}`);
    await settle();
    // A holds its share; a slot stays free even though A has more waiting.
    expect(r.granted).toEqual(['a1', 'a2', 'a3']);
    expect(gate.snapshot().active).toBe(3);
    void r.ask('b', 'b1');
    await settle();
    // B goes straight through while every one of A's requests is still held.
    expect(r.granted).toEqual(['a1', 'a2', 'a3', 'b1']);
  });

  it('serves three tenants in turn', async () => {
    const gate = new FairGate({ slots: 1, perTenantSlots: 1, maxQueuedPerTenant: 100 });
    const r = recorder(gate);
    void r.ask('a', 'a0');
    await settle();
    for (const label of ['a1', 'a2', 'a3', 'b1', 'b2', 'c1']) void r.ask(label[0]!, label);
    await settle();
    for (let i = 0; i < 6; i++) {
      await r.release(r.granted.at(-1) as string);
      await settle();
    }
    expect(r.granted).toEqual(['a0', 'a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
  });

  it("refuses a request beyond the tenant's queue bound, not another tenant's", async () => {
    const gate = new FairGate({ slots: 1, perTenantSlots: 1, maxQueuedPerTenant: 2 });
    const r = recorder(gate);
    void r.ask('a', 'a1');
    void r.ask('a', 'a2');
    void r.ask('a', 'a3');
    await expect(gate.acquire('a')).rejects.toBeInstanceOf(GateQueueFull);
    const b = gate.acquire('b');
    await settle();
    expect(gate.snapshot().queued).toEqual({ a: 2, b: 1 });
    // A queued first, so its turn comes first; then B's.
    await r.release('a1');
    expect(r.granted).toEqual(['a1', 'a2']);
    await r.release('a2');
    await expect(b).resolves.toBeTypeOf('function');
    expect(gate.snapshot().queued).toEqual({ a: 1 });
  });

  it('drops a request whose signal aborts while it waits', async () => {
    const gate = new FairGate({ slots: 1, perTenantSlots: 1, maxQueuedPerTenant: 10 });
    const r = recorder(gate);
    void r.ask('a', 'a1');
    const controller = new AbortController();
    const waiting = gate.acquire('b', controller.signal);
    void r.ask('c', 'c1');
    controller.abort(new Error('client gone'));
    await expect(waiting).rejects.toThrow('client gone');
    expect(gate.snapshot().queued).toEqual({ c: 1 });
    await r.release('a1');
    await settle();
    expect(r.granted).toEqual(['a1', 'c1']);
    expect(gate.snapshot()).toEqual({ active: 1, held: { c: 1 }, queued: {} });
  });

  it('counts a release once, however often it is called', async () => {
    const gate = new FairGate({ slots: 1, perTenantSlots: 1, maxQueuedPerTenant: 10 });
    const release = await gate.acquire('a');
    release();
    release();
    expect(gate.snapshot()).toEqual({ active: 0, held: {}, queued: {} });
  });

  it('keeps a quarter of the pool for others by default', () => {
    expect(defaultPerTenantConnections(256)).toBe(192);
    expect(defaultPerTenantConnections(1)).toBe(1);
    expect(defaultPerTenantConnections(8)).toBe(6);
  });
});
